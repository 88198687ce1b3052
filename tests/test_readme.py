"""The README's examples run as written: every engine command of its CPU block, on this (CPU) machine."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CPU_BLOCK = "The engine commands below run as written on a CPU-only machine"


def _block_after(marker: str) -> list[str]:
    rest = README.split(marker, 1)[1]
    block = re.search(r"```sh\n(.*?)```", rest, re.DOTALL)
    assert block is not None, f"no code block after {marker!r}"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_the_readme_marks_its_gpu_example_and_no_stale_claims() -> None:
    gpu = [line for line in README.splitlines() if line.startswith("headdiv") and "--device cuda" in line]
    assert gpu and all("GPU only" in line for line in gpu), gpu
    assert "install test + dev tools" not in README and "bench" in README.split("make test", 2)[1][:120]
    assert "bounds are\nin [docs/model.md]" not in README


@pytest.mark.slow
def test_every_cpu_example_of_the_readme_runs_as_written(tmp_path: Path) -> None:
    lines = _block_after(CPU_BLOCK)
    assert sum("headdiv " in line for line in lines) >= 7
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "HEADDIV_COMPILE": "off",
        "HEADDIV_DEVICE": "auto",
    }
    for line in lines:
        assert "cuda" not in line
        result = subprocess.run(
            ["bash", "-o", "pipefail", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240
        )
        assert result.returncode == 0, f"{line}\n{result.stderr[-2000:]}"
        if "headdiv " in line:
            assert isinstance(json.loads(result.stdout), dict), line
