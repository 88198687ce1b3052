"""The engine on a GPU, against the GPU's own floors, measured side by side in one run.

  ceilings  the card's device-to-device copy bandwidth (bytes read + written) and one torch.exp over
            512 Mi float32 elements (elements per second)
  nw        the NW step (`nw_attention`, compiled, MAW statistics included) of S1, S2, S3 at several
            score-block sizes, against one torch.exp over the same R*H*queries*n float32 elements and
            against the memory-bandwidth bound of the bytes the step must touch (its inputs read once,
            its four outputs written once); the eager step and SDPA (value padded to d_k) beside it;
            peak GPU memory of the step beyond its inputs
  simulate  `simulate` end to end (default scenario, S1) on the GPU and on this machine's CPU cores, and
            the share of S1's time spent drawing its data on the CPU and copying it over
  surface   a 16 x 16 surface (theta x noise) of S1 cells, batched by `simulate_many` (target < 0.5 s)
  largest   the largest scenarios the work limits allow, their time and peak GPU memory
  profile   torch.profiler over the S1 step and over one S1 simulation: kernel launches, top kernels,
            host-device copies and synchronisations (tables written under $OUT when it is set)

Run on a machine with CUDA: `python bench/bench_gpu.py` (about two minutes, compilation included).
"""

from __future__ import annotations

import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import torch
import torch.nn.functional as F

SHAPES = {"S1": (200, 8, 64, 512, 8), "S2": (200, 8, 64, 2048, 8), "S3": (100, 16, 64, 512, 32)}
BLOCKS_MIB = (8, 64, 256, 1024)
DEVICE = "cuda"
OUT = Path(os.environ["OUT"]) if os.environ.get("OUT") else None


def gpu_time(fn: Callable[[], object], repeat: int = 10) -> float:
    """Median seconds of `fn` on the GPU (synchronised before and after each call), after one warm-up."""
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def step(title: str) -> None:
    print(f"\n== {title}", flush=True)


def ceilings(dev: torch.device) -> tuple[float, float]:
    a = torch.randn(1 << 28, device=dev)  # 1 GiB
    b = torch.empty_like(a)
    copy = gpu_time(lambda: b.copy_(a))
    bandwidth = 2 * a.numel() * 4 / copy
    x = torch.randn(1 << 29, device=dev)
    y = torch.empty_like(x)
    exp = gpu_time(lambda: torch.exp(x, out=y))
    rate = x.numel() / exp
    print(f"copy {bandwidth / 1e12:.2f} TB/s (read + write); exp {rate / 1e9:.0f} G elements/s ({exp * 1e3:.2f} ms)")
    return bandwidth, rate


def inputs(shape: tuple[int, ...], dev: torch.device) -> tuple[torch.Tensor, ...]:
    r, h, q, n, d = shape
    g = torch.Generator(device=dev).manual_seed(0)
    qq = torch.randn(r * h, q, d, generator=g, device=dev) / math.sqrt(d)
    kt = torch.randn(r * h, d, n, generator=g, device=dev)
    kb = -0.5 * (kt * kt).sum(1)
    y = torch.randn(r * h, n, generator=g, device=dev)
    return qq, kt, kb, y


def nw_table(dev: torch.device, bandwidth: float) -> None:
    from headdiv.workers.engine import nw
    from headdiv.workers.settings import get_engine_settings

    t = time.perf_counter()
    compiled = nw.warm_up(dev, torch.float32)
    print(f"compiled={compiled} in {time.perf_counter() - t:.1f} s (excluded)")
    if not compiled:  # measure the eager step rather than fail every section on a new compile attempt
        get_engine_settings().compile = "off"
    print(
        f"{'shape':5} {'block':>6} {'engine ms':>9} {'exp ms':>7} {'bytes ms':>8} {'eager ms':>8} {'sdpa ms':>7} "
        f"{'eng/exp':>7} {'eng/bytes':>9} {'peak MB':>7}"
    )
    for name, shape in SHAPES.items():
        qq, kt, kb, y = inputs(shape, dev)
        b, q, n, d = kt.shape[0], qq.shape[1], kt.shape[2], shape[4]
        scores = torch.randn(b, q, n, device=dev)
        out = torch.empty_like(scores)
        exp = gpu_time(lambda: torch.exp(scores, out=out))  # noqa: B023
        touched = 4 * (b * q * d + b * d * n + 2 * b * n + 4 * b * q)
        floor = touched / bandwidth
        v = torch.zeros(b, n, d, device=dev)
        v[..., 0] = y
        k = kt.transpose(1, 2).contiguous()
        sdpa = gpu_time(lambda: F.scaled_dot_product_attention(qq, k, v, scale=1.0))  # noqa: B023
        settings = get_engine_settings()
        mode = settings.compile
        settings.compile = "off"
        saved = nw._compiled.pop((dev.type, torch.float32), None)
        eager = gpu_time(lambda: nw.nw_attention(qq, kt, kb, y, with_stats=True, transposed=True), 3)  # noqa: B023
        if saved is not None:
            nw._compiled[(dev.type, torch.float32)] = saved
        settings.compile = mode
        for mib in BLOCKS_MIB:

            def run(mib: int = mib) -> object:
                return nw.nw_attention(qq, kt, kb, y, with_stats=True, transposed=True, score_bytes=mib << 20)  # noqa: B023

            engine = gpu_time(run)
            torch.cuda.reset_peak_memory_stats(dev)
            base = torch.cuda.memory_allocated(dev)
            run()
            torch.cuda.synchronize()
            peak = (torch.cuda.max_memory_allocated(dev) - base) / 2**20
            print(
                f"{name:5} {mib:4}Mi {engine * 1e3:9.3f} {exp * 1e3:7.3f} {floor * 1e3:8.3f} {eager * 1e3:8.2f} "
                f"{sdpa * 1e3:7.3f} {engine / exp:7.2f} {engine / floor:9.1f} {peak:7.1f}",
                flush=True,
            )
        torch.cuda.empty_cache()


S1 = {"replicates": 200, "H": 8, "queries": 64, "n": 512, "d_k": 8}


def simulate_table(dev: torch.device) -> None:
    from headdiv.workers.engine.sampling import training_sets
    from headdiv.workers.engine.simulation import simulate
    from headdiv.workers.schemas import Scenario

    for label, s in (("default", Scenario()), ("S1", Scenario(**S1))):
        gpu = gpu_time(lambda: simulate(s, device=dev.type), 5)  # noqa: B023
        cpu = gpu_time(lambda: simulate(s, device="cpu"), 3)  # noqa: B023
        print(
            f"simulate {label:8} cuda {gpu * 1e3:8.1f} ms   cpu ({torch.get_num_threads()} threads) {cpu * 1e3:8.1f} ms"
        )
    s = Scenario(**S1)
    p = s.ambient_dim
    draw = gpu_time(lambda: training_sets(s.seed, 0, s.replicates, s.n, p, device=dev, dtype=torch.float32), 5)
    print(f"S1's draws on the CPU and copy to the GPU: {draw * 1e3:.1f} ms")


def surface(dev: torch.device) -> None:
    from headdiv.workers.engine.simulation import simulate_many
    from headdiv.workers.schemas import Scenario

    cells = [
        Scenario.model_validate({**S1, "theta": 90.0 * i / 15, "noise": 0.1 + 1.9 * j / 15, "seed": s})
        for s in (1, 2)
        for i in range(16)
        for j in range(16)
    ]
    for half in (cells[:256], cells[256:]):  # the second: another seed, nothing cached anywhere
        torch.cuda.reset_peak_memory_stats(dev)
        t = time.perf_counter()
        done = sum(1 for _ in simulate_many(half, device=dev.type))
        took = time.perf_counter() - t
        peak = torch.cuda.max_memory_allocated(dev) / 2**20
        print(
            f"16x16 surface of S1 cells (theta x noise, seed {half[0].seed}): {done} cells in {took:.3f} s, peak {peak:.0f} MB"
        )


LARGEST = {
    "many replicates": {"replicates": 5000, "H": 16, "queries": 100, "n": 416, "d_k": 8},
    "long sequences": {"replicates": 20, "H": 8, "queries": 64, "n": 65536, "d_k": 8},
    "wide heads": {"replicates": 200, "H": 8, "queries": 64, "n": 1024, "d_k": 256},
}


def largest(dev: torch.device) -> None:
    from pydantic import ValidationError

    from headdiv.workers.engine.simulation import simulate
    from headdiv.workers.schemas import Scenario

    for label, fields in LARGEST.items():
        try:
            s = Scenario(**fields)
        except ValidationError as exc:
            print(f"{label}: refused by the limits: {exc.errors()[0]['msg']}")
            continue
        torch.cuda.reset_peak_memory_stats(dev)
        t = time.perf_counter()
        simulate(s, device=dev.type)
        took = time.perf_counter() - t
        peak = torch.cuda.max_memory_allocated(dev) / 2**20
        print(f"{label:16} {fields} work {s.work:.2e}: {took:.2f} s, peak {peak:.0f} MB")


def profile(dev: torch.device) -> None:
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    from headdiv.workers.engine import nw
    from headdiv.workers.engine.simulation import simulate
    from headdiv.workers.schemas import Scenario

    qq, kt, kb, y = inputs(SHAPES["S1"], dev)
    s = Scenario(**S1)
    simulate(s, device=dev.type)
    for label, fn in (
        ("S1 NW step", lambda: nw.nw_attention(qq, kt, kb, y, with_stats=True, transposed=True)),
        ("S1 simulate", lambda: simulate(s, device=dev.type)),
    ):
        torch.cuda.synchronize()
        with torch_profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        events = prof.key_averages()
        kernels = [e for e in events if e.device_type == torch.autograd.DeviceType.CUDA]
        launches = sum(e.count for e in kernels)
        gpu_us = sum(e.self_device_time_total for e in kernels)
        syncs = sum(e.count for e in events if "synchronize" in e.key.lower() or e.key == "aten::item")
        copies = sum(e.count for e in events if "memcpy" in e.key.lower())
        print(f"{label}: {launches} kernel launches, {gpu_us / 1e3:.2f} ms of GPU time, {copies} copies, {syncs} syncs")
        for order in ("self_device_time_total", "self_cpu_time_total"):
            table = events.table(sort_by=order, row_limit=10, max_name_column_width=50)
            print("\n".join(table.splitlines()[:16]))
        if OUT:
            (OUT / f"profile_{label.replace(' ', '_')}.txt").write_text(
                events.table(sort_by="self_device_time_total", row_limit=60, max_name_column_width=90)
            )


def main() -> None:
    if not torch.cuda.is_available():
        print("bench_gpu: no CUDA device here; run it on a machine with one")
        return
    os.environ.setdefault("HEADDIV_COMPILE", "on")
    dev = torch.device(DEVICE)
    props = torch.cuda.get_device_properties(dev)
    free, total = torch.cuda.mem_get_info(dev)
    print(
        f"{props.name}: {props.multi_processor_count} SMs, {total / 2**30:.1f} GiB ({free / 2**30:.1f} free); "
        f"torch {torch.__version__}, CUDA {torch.version.cuda}; CPU threads {torch.get_num_threads()}"
    )
    sections: list[tuple[str, Callable[[], object]]] = []
    bandwidth = [3e12]

    def measure_ceilings() -> None:
        bandwidth[0] = ceilings(dev)[0]

    sections += [
        ("ceilings", measure_ceilings),
        ("nw step", lambda: nw_table(dev, bandwidth[0])),
        ("simulate", lambda: simulate_table(dev)),
        ("surface", lambda: surface(dev)),
        ("largest", lambda: largest(dev)),
        ("profile", lambda: profile(dev)),
    ]
    only = set(sys.argv[1:])
    for title, fn in sections:
        if only and title.split()[0] not in only:
            continue
        step(title)
        try:
            fn()
        except Exception as exc:  # one section's failure must not lose the others' numbers
            print(f"{title}: FAILED {type(exc).__name__}: {exc}", flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
