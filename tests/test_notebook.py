"""The tutorial notebook (docs/notebooks/tour.ipynb) runs end to end and its claims hold on the numbers: each
code cell in order, in one namespace, as a kernel would (its `assert` lines are the story's claims)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "docs" / "notebooks" / "tour.ipynb"
RUN = """import json, sys
notebook = json.load(open(sys.argv[1], encoding="utf-8"))
namespace = {}
for i, cell in enumerate(notebook["cells"]):
    if cell["cell_type"] == "code":
        exec(compile("".join(cell["source"]), f"{sys.argv[1]}[{i}]", "exec"), namespace)
"""
"""What runs a notebook here (also in the fresh venv of tests/test_wheel.py)."""


def run(notebook: dict[str, Any], name: str = "tour.ipynb") -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    for i, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "code":
            exec(compile("".join(cell["source"]), f"{name}[{i}]", "exec"), namespace)
    return namespace


@pytest.mark.timeout(300)
def test_the_tutorial_tells_the_papers_story_and_its_claims_hold() -> None:
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    assert notebook["nbformat"] == 4 and all(not c.get("outputs") for c in notebook["cells"] if "outputs" in c)
    done = run(notebook)
    assert done["orthogonal"].mse < done["identical"].mse
    assert {"sweep", "arch", "model"} <= set(done)


def test_a_claim_that_does_not_hold_stops_the_notebook() -> None:
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    notebook["cells"] = [
        code[0],
        {**code[1], "source": [*code[1]["source"], "\nassert orthogonal.mse > identical.mse\n"]},
    ]
    with pytest.raises(AssertionError):
        run(notebook)
