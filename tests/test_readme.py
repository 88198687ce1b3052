"""The README says what is true. Its CPU block's engine commands run as written on the default install, in
`tests/test_plain_install.py` (where nothing the test extras bring can hide a missing dependency)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_marks_its_gpu_example_and_no_stale_claims() -> None:
    gpu = [line for line in README.splitlines() if line.startswith("headdiv") and "--device cuda" in line]
    assert gpu and all("GPU only" in line for line in gpu), gpu
    assert "install test + dev tools" not in README and "bench" in README.split("make test", 2)[1][:120]
    assert "bounds are\nin [docs/model.md]" not in README
