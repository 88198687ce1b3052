"""The engine on a GPU, against the GPU's own floors, measured side by side in one run.

  ceilings  the card's device-to-device copy bandwidth (bytes read + written) and one torch.exp over
            512 Mi float32 elements (elements per second)
  nw        the NW step (`nw_attention`, compiled, MAW statistics included) of S1, S2, S3 at several
            score-block sizes, against one torch.exp over the same R*H*queries*n float32 elements and
            against the memory-bandwidth bound of the bytes the step must touch (its inputs read once,
            its four outputs written once); the eager step and SDPA (value padded to d_k) beside it;
            peak GPU memory of the step beyond its inputs
  simulate  `simulate` end to end (default scenario, S1) on the GPU and on this machine's CPU cores, as the
            first run of its seed and with its training sets kept from the last; S1's draws on 4, 8 and 16
            CPU threads with their copy to the GPU
  surface   a 16 x 16 surface (theta x noise) of S1 cells by `simulate_many` (target < 0.5 s): a seed's first
            run and with its draws kept, with all cells in one batch and larger chunks; then where its time
            goes (each phase synchronised)
  agreement CPU and CUDA on the same seeds, float32 and float64: the worst relative difference
  largest   the largest scenarios the work limits allow, their time and peak GPU memory, in chunks of the
            default size and of 4 GiB
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
import itertools

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
    from headdiv.schemas.engine_settings import get_engine_settings
    from headdiv.workers.engine import nw

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


def cold(fn: Callable[[], object]) -> Callable[[], object]:
    """`fn` with no training sets kept from an earlier run (the first run of a seed)."""
    from headdiv.workers.engine.sampling import forget_draws

    def run() -> object:
        forget_draws()
        return fn()

    return run


def simulate_table(dev: torch.device) -> None:
    from headdiv.schemas import Scenario
    from headdiv.workers.engine import sampling
    from headdiv.workers.engine.simulation import simulate

    for label, s in (("default", Scenario()), ("S1", Scenario(**S1))):
        times = {}
        for where, repeat in ((dev.type, 10), ("cpu", 3)):
            for kept in (False, True):
                fn = lambda: simulate(s, device=where)  # noqa: B023, E731
                times[where, kept] = gpu_time(fn if kept else cold(fn), repeat)
        print(
            f"simulate {label:8} cuda {times['cuda', False] * 1e3:7.1f} ms first run of its seed, "
            f"{times['cuda', True] * 1e3:7.1f} ms with its draws kept;   cpu ({torch.get_num_threads()} threads) "
            f"{times['cpu', False] * 1e3:7.1f} / {times['cpu', True] * 1e3:7.1f} ms"
        )
    s = Scenario(**S1)
    p = s.ambient_dim
    for threads in (4, 8, sampling.GPU_SAMPLER_THREADS):
        saved = sampling.GPU_SAMPLER_THREADS
        sampling.GPU_SAMPLER_THREADS = threads
        sampling._sampler_threads.cache_clear()
        sampling._pool.cache_clear()
        draw = gpu_time(
            cold(lambda: sampling.training_sets(s.seed, 0, s.replicates, s.n, p, device=dev, dtype=torch.float32)), 10
        )
        sampling.GPU_SAMPLER_THREADS = saved
        sampling._sampler_threads.cache_clear()
        sampling._pool.cache_clear()
        print(f"S1's draws on {threads:2} CPU threads and their copy to the GPU: {draw * 1e3:.1f} ms")
    draw_parts(s.seed, s.replicates, s.n, p, dev)


def draw_parts(seed: int, r: int, n: int, p: int, dev: torch.device) -> None:
    """Where a draw's time goes: the normal draws alone (pageable memory, 1 and all sampler threads), a
    page-locked buffer's allocation, and the copy to the GPU."""
    from headdiv.workers.engine import sampling

    x = torch.empty(r, n, p)

    def draws(rows: range) -> None:
        gen = torch.Generator()
        for i in rows:
            gen.manual_seed(sampling.derive_seed(seed, sampling.TRAINING, i))
            torch.randn(n, p, generator=gen, out=x[i])

    one = gpu_time(lambda: draws(range(r)), 3)
    k = sampling._sampler_threads(gpu=True)
    bounds = [r * i // k for i in range(k + 1)]
    parts = [range(a, b) for a, b in itertools.pairwise(bounds)]
    many = gpu_time(lambda: list(sampling._pool().map(draws, parts)), 5)
    alloc = gpu_time(lambda: torch.empty(r, n, p, pin_memory=True), 5)
    pinned = torch.empty(r, n, p, pin_memory=True)
    copy = gpu_time(lambda: pinned.to(dev, non_blocking=True), 5)
    print(
        f"S1's draw in parts: randn on 1 thread {one * 1e3:.1f} ms, on {k} threads {many * 1e3:.1f} ms; "
        f"page-locked buffer {alloc * 1e3:.2f} ms; copy to the GPU {copy * 1e3:.2f} ms"
    )


def surface_cells(seed: int) -> list[object]:
    from headdiv.schemas import Scenario

    return [
        Scenario.model_validate({**S1, "theta": 90.0 * i / 15, "noise": 0.1 + 1.9 * j / 15, "seed": seed})
        for i in range(16)
        for j in range(16)
    ]


def surface(dev: torch.device) -> None:
    """The 16 x 16 surface: first run of its seed and again with its draws kept; with all cells in one batch
    (2^26 estimates), and with larger chunks of training sets too."""
    from headdiv.schemas.engine_settings import get_engine_settings
    from headdiv.workers.engine import simulation
    from headdiv.workers.engine.sampling import forget_draws

    settings = get_engine_settings()
    defaults = settings.max_estimates, settings.cuda_chunk_bytes
    seed = 10
    variants = [
        ("first run of its seed", True, defaults),
        ("draws kept", False, defaults),
        ("first run, batches of 2^26 estimates", True, (1 << 26, defaults[1])),
        ("draws kept, batches of 2^26 estimates", False, (1 << 26, defaults[1])),
        ("kept, 2^26 estimates, 4 GiB chunks", False, (1 << 26, 4 << 30)),
    ]
    for label, fresh, (estimates, chunk) in variants:
        for _ in range(2):  # the second of each is reported: the first pays any new shape's compilation
            seed += 1 if fresh else 0
            cells = surface_cells(seed)
            if fresh:
                forget_draws()
            settings.max_estimates, settings.cuda_chunk_bytes = estimates, chunk
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats(dev)
            t = time.perf_counter()
            first = None
            done = 0
            for _ in simulation.simulate_many(cells, device=dev.type):  # type: ignore[arg-type]
                done += 1
                first = first or time.perf_counter() - t
            took = time.perf_counter() - t
        peak = torch.cuda.max_memory_allocated(dev) / 2**20
        print(
            f"16x16 surface of S1 cells, {label:40}: {done} cells in {took:.3f} s (first cell {first:.3f} s), "
            f"peak {peak:.0f} MB",
            flush=True,
        )
    settings.max_estimates, settings.cuda_chunk_bytes = defaults
    phases(dev)


def phases(dev: torch.device) -> None:
    """Where a surface's time goes (draws kept, a synchronisation after each phase)."""
    from headdiv.workers.engine import simulation

    spent: dict[str, float] = {}

    def timed(name: str, fn: Callable[..., object]) -> Callable[..., object]:
        def run(*args: object, **kwargs: object) -> object:
            torch.cuda.synchronize()
            t = time.perf_counter()
            out = fn(*args, **kwargs)
            torch.cuda.synchronize()
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - t
            return out

        return run

    saved = {name: getattr(simulation, name) for name in ("run_draws", "_reduce", "_result", "build_geometry")}
    for name, fn in saved.items():
        setattr(simulation, name, timed(name, fn))
    try:
        t = time.perf_counter()
        list(simulation.simulate_many(surface_cells(11), device=dev.type))  # type: ignore[arg-type]
        total = time.perf_counter() - t
    finally:
        for name, fn in saved.items():
            setattr(simulation, name, fn)
    rest = total - sum(spent.values())
    parts = ", ".join(f"{name} {v * 1e3:.0f} ms" for name, v in spent.items())
    print(f"surface phases (synchronised): {parts}, the rest {rest * 1e3:.0f} ms; total {total:.3f} s")


def agreement(dev: torch.device) -> None:
    """CPU and CUDA on the same seeds: the worst relative difference of every decomposition number."""
    from headdiv.workers.engine.simulation import simulate_many

    cells = surface_cells(3)[::37]  # 7 cells across the surface
    keys = ("mse", "bias2", "variance", "covariance", "mse_direct", "mse_se")
    for dtype in ("float32", "float64"):
        gpu = dict(simulate_many(cells, device=dev.type, dtype=dtype))  # type: ignore[arg-type]
        cpu = dict(simulate_many(cells, device="cpu", dtype=dtype))  # type: ignore[arg-type]
        worst, where = 0.0, ""
        for i in gpu:
            for k in keys:
                a, b = getattr(gpu[i], k), getattr(cpu[i], k)
                rel = abs(a - b) / max(abs(b), 1e-12)
                if rel > worst:
                    worst, where = rel, f"{k} of cell {i} ({b:.3e})"
        print(f"CPU vs CUDA, {dtype}: worst relative difference {worst:.1e} at {where}")


LARGEST = {
    "many replicates": {"replicates": 5000, "H": 16, "queries": 100, "n": 416, "d_k": 8},
    "long sequences": {"replicates": 20, "H": 8, "queries": 64, "n": 65536, "d_k": 8},
    "wide heads": {"replicates": 200, "H": 8, "queries": 64, "n": 1024, "d_k": 256},
}


def largest(dev: torch.device) -> None:
    """The largest scenarios, each the first run of its seed, in chunks of the default size and of 4 GiB (a
    chunk's draws on the CPU overlap the GPU's work on the last one)."""
    from pydantic import ValidationError

    from headdiv.schemas import Scenario
    from headdiv.schemas.engine_settings import get_engine_settings
    from headdiv.workers.engine.sampling import forget_draws
    from headdiv.workers.engine.simulation import simulate

    settings = get_engine_settings()
    default = settings.cuda_chunk_bytes
    for label, fields in LARGEST.items():
        try:
            s = Scenario(**fields)
        except ValidationError as exc:
            print(f"{label}: refused by the limits: {exc.errors()[0]['msg']}")
            continue
        for chunk in (default, 4 << 30):
            settings.cuda_chunk_bytes = chunk
            forget_draws()
            torch.cuda.reset_peak_memory_stats(dev)
            t = time.perf_counter()
            simulate(s, device=dev.type)
            took = time.perf_counter() - t
            peak = torch.cuda.max_memory_allocated(dev) / 2**20
            print(f"{label:16} {fields} work {s.work:.2e}, chunks {chunk >> 30} GiB: {took:.2f} s, peak {peak:.0f} MB")
        settings.cuda_chunk_bytes = default


def profile(dev: torch.device) -> None:
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    from headdiv.schemas import Scenario
    from headdiv.workers.engine import nw
    from headdiv.workers.engine.simulation import simulate

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
        ("agreement", lambda: agreement(dev)),
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
