"""The tutorial notebook (docs/notebooks/tour.ipynb) runs end to end in a Jupyter kernel (nbclient), its
claims hold on the numbers (its `assert` lines), and each result shows inline as a notebook shows it: its
summary table, then its chart as Plotly's own output."""

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
"""Each code cell in order in one namespace, without a kernel (the fresh venv of tests/test_wheel.py)."""


def execute(notebook: Any, tmp_path: Path) -> Any:
    from nbclient import NotebookClient

    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    return notebook


@pytest.mark.timeout(400)
def test_the_tutorial_runs_in_a_kernel_and_shows_each_result_inline(tmp_path: Path) -> None:
    import nbformat

    notebook = execute(nbformat.read(NOTEBOOK, as_version=4), tmp_path)
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    shown = [o["data"] for o in outputs if o.output_type == "display_data"]
    tables = [d["text/html"] for d in shown if "headdiv-summary" in d.get("text/html", "")]
    assert tables and "MSE ± s.e." in tables[0]  # the result at the end of a cell: its summary ...
    charts = [d["application/vnd.plotly.v1+json"] for d in shown if "application/vnd.plotly.v1+json" in d]
    assert len(charts) >= 4 and all(chart["data"] for chart in charts)  # ... and every chart drawn
    printed = "".join(o.get("text", "") for o in outputs if o.output_type == "stream" and o.name == "stdout")
    assert "headdiv simulate " in printed and "layer 5" in printed
    warned = "".join(o.get("text", "") for o in outputs if o.output_type == "stream" and o.name == "stderr")
    assert "Warning" not in warned, warned[:500]


def test_a_claim_that_does_not_hold_stops_the_notebook(tmp_path: Path) -> None:
    import nbformat
    from nbclient.exceptions import CellExecutionError

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    code[1].source += "\nassert orthogonal.mse > identical.mse, 'a false claim'\n"
    notebook.cells = code[:2]
    with pytest.raises(CellExecutionError, match="a false claim"):
        execute(notebook, tmp_path)


def test_the_notebook_is_stored_without_outputs() -> None:
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    assert notebook["nbformat"] == 4
    assert all(
        not c.get("outputs") and c.get("execution_count") is None for c in notebook["cells"] if c["cell_type"] == "code"
    )
