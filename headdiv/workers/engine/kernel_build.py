"""The NW step's compiled kernels built as AOTInductor packages and kept for the next start (`nw.load_kept`).

A package holds the code torch.compile generates, as a shared library with its own C++ runner: exported at
the compiled kernels' first hint shape (the same loops), with dynamic batch, query, key and width sizes, it
loads in milliseconds where compiling again costs a start about 5 s of CPU holding the interpreter. Building
one costs a minute or more of a core (mostly the C++ compiler), so the first start of a version leaves it
to a process of its own at the lowest CPU priority once its first views are computed (`build_elsewhere`):
the server's interpreter is never held, and the process ends with the server.

`python -m headdiv.workers.engine.kernel_build DTYPE THREADS PARENT_PID` is that process.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import torch

from headdiv.plumbing.kept import keep, kept_dir, kept_path
from headdiv.schemas.engine_settings import get_engine_settings
from headdiv.workers.engine import nw
from headdiv.workers.engine.device import resolve_device, resolve_dtype

log = logging.getLogger(__name__)

MODULE = "headdiv.workers.engine.kernel_build"
BUILD_LIMIT_S = 1800.0
"""A build not done by then is stopped (at the lowest priority on a machine kept busy, it may never be)."""
DTYPES = {"float32": torch.float32, "float64": torch.float64}


class _Kernel(torch.nn.Module):
    """A kernel as the module torch.export takes."""

    def __init__(self, fn: nw.NWFn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, q: torch.Tensor, kt: torch.Tensor, kb: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return self.fn(q, kt, kb, y)


def missing(dtype: torch.dtype) -> list[str]:
    """The kernels not kept for this process's setup."""
    return [kernel for kernel in nw.COMPILED_KERNELS if kept_path(nw.KEPT_KIND, nw.kept_name(kernel, dtype)) is None]


def build(dtype: torch.dtype) -> bool:
    """Export, compile and keep each CPU kernel not kept yet; False when one could not be kept."""
    from torch.export import Dim

    cpu = torch.device("cpu")
    batch, rows, keys, width = Dim("batch", min=2), Dim("rows", min=3), Dim("keys", min=2), Dim("width", min=2)
    shapes = ({0: batch, 1: rows, 2: width}, {0: batch, 1: width, 2: keys}, {0: batch, 1: keys}, {0: batch, 1: keys})
    for kernel in missing(dtype):
        fn, first_width = nw.COMPILED_KERNELS[kernel]
        example = nw.hint_inputs(first_width, nw.HINT_SHAPES[0], cpu, dtype)
        program = torch.export.export(_Kernel(fn), example, dynamic_shapes=shapes)
        with tempfile.TemporaryDirectory(prefix="headdiv-kernel-") as tmp:
            path = torch._inductor.aoti_compile_and_package(
                program, package_path=os.path.join(tmp, f"{kernel}.pt2"), inductor_configs=dict(nw.INDUCTOR_OPTIONS)
            )
            if not keep(nw.KEPT_KIND, nw.kept_name(kernel, dtype), Path(path).read_bytes()):
                return False
    return True


def build_elsewhere(stop: threading.Event | None = None) -> bool:
    """`build` for the configured dtype in a process of its own at the lowest priority, waited for (stopped
    when `stop` is set, the server shutting down, or after `BUILD_LIMIT_S`). True when both kernels are kept;
    nothing is built with compilation off, keeping off, or on a GPU (the packages are the CPU's)."""
    dtype = resolve_dtype(None)
    folder = kept_dir()
    if get_engine_settings().compile == "off" or folder is None or resolve_device(None).type != "cpu":
        return False
    if not missing(dtype):
        return True
    failed = nw.kept_name("every", dtype).removesuffix(".pt2") + ".failed"
    if kept_path(nw.KEPT_KIND, failed) is not None or not _writable(folder / nw.KEPT_KIND):
        return False  # a build that failed, or could not be kept, would run again at every start
    command = [sys.executable, "-m", MODULE, str(dtype).removeprefix("torch."), str(torch.get_num_threads())]
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [*command, str(os.getpid())], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err
        )
        deadline = time.monotonic() + BUILD_LIMIT_S
        stopping = stop or threading.Event()
        while proc.poll() is None:
            if stopping.wait(0.5) or time.monotonic() > deadline:
                proc.kill()
                proc.wait()
                return False
        if proc.returncode != 0:
            err.seek(0)
            tail = err.read()[-3000:].decode("utf-8", "replace")
            log.warning("the NW kernels were not kept for the next start (exit %s): %s", proc.returncode, tail)
            keep(nw.KEPT_KIND, failed, tail.encode())
            return False
    return not missing(dtype)


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK)


def _end_with(parent: int) -> None:
    """This process is sent SIGTERM when the thread that started it ends, the server's process with it (Linux)."""
    if sys.platform == "linux":
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # it ended before that took hold
        raise SystemExit(1)


def main(argv: Sequence[str] | None = None) -> int:
    dtype, threads, parent = argv if argv is not None else sys.argv[1:]
    os.nice(19)  # the lowest: whatever else wants the cores goes first
    _end_with(int(parent))
    torch.set_num_threads(int(threads))  # inductor plans its loops for the server's threads
    return 0 if build(DTYPES[dtype]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
