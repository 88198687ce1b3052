"""A big sharded checkpoint measured in bounded memory: `headdiv heads` on a 1B-parameter Llama-shaped bf16
model in two shards (Llama 3.2 1B's shapes: d_model 2048, 16 layers, 32 query heads and 8 key heads of 64,
MLP 8192, vocabulary 128,256), synthetic and written here, against loading the checkpoint whole as a script
would (`safetensors.torch.load_file` of each shard).

Each is run in a fresh process: its RSS once its imports are done ("idle"), its peak RSS, and the wall time
of the measurement itself. Targets: ≤ 10 s and ≤ 300 MB above idle.

    python bench/bench_models.py [--dir DIR]   # DIR keeps the checkpoint between runs (2.5 GB)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SHAPE: dict[str, int] = {
    "hidden_size": 2048,
    "num_hidden_layers": 16,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 64,
    "intermediate_size": 8192,
    "vocab_size": 128256,
}
CONFIG: dict[str, object] = {"model_type": "llama", **SHAPE}
SHARDS = 2


def tensors_of(layer: int) -> dict[str, tuple[int, int]]:
    c = SHAPE
    d, hd, kv, mlp = c["hidden_size"], c["head_dim"], c["num_key_value_heads"], c["intermediate_size"]
    p = f"model.layers.{layer}."
    return {
        p + "self_attn.q_proj.weight": (c["num_attention_heads"] * hd, d),
        p + "self_attn.k_proj.weight": (kv * hd, d),
        p + "self_attn.v_proj.weight": (kv * hd, d),
        p + "self_attn.o_proj.weight": (d, c["num_attention_heads"] * hd),
        p + "mlp.gate_proj.weight": (mlp, d),
        p + "mlp.up_proj.weight": (mlp, d),
        p + "mlp.down_proj.weight": (d, mlp),
    }


def write_checkpoint(folder: Path) -> int:
    """The checkpoint, shard by shard (attention weights random, the rest zeros: only shapes matter to the
    reader's memory); returns its parameter count."""
    import torch
    from safetensors.torch import save_file

    if (folder / "model.safetensors.index.json").is_file():
        index = json.loads((folder / "model.safetensors.index.json").read_text())
        return int(index["metadata"]["total_parameters"])
    folder.mkdir(parents=True, exist_ok=True)
    shapes: dict[str, tuple[int, ...]] = {"model.embed_tokens.weight": (SHAPE["vocab_size"], SHAPE["hidden_size"])}
    for layer in range(SHAPE["num_hidden_layers"]):
        shapes.update(tensors_of(layer))
    shapes["model.norm.weight"] = (SHAPE["hidden_size"],)
    names = list(shapes)
    per = -(-len(names) // SHARDS)
    weight_map: dict[str, str] = {}
    total = 0
    generator = torch.Generator().manual_seed(0)
    for k in range(SHARDS):
        file = f"model-{k + 1:05d}-of-{SHARDS:05d}.safetensors"
        part = {}
        for name in names[k * per : (k + 1) * per]:
            shape = shapes[name]
            random = "q_proj" in name or "k_proj" in name
            part[name] = (torch.randn(shape, generator=generator) if random else torch.zeros(shape)).to(torch.bfloat16)
            weight_map[name] = file
            total += part[name].numel()
        save_file(part, str(folder / file), metadata={"format": "pt"})
        del part
    (folder / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {"total_parameters": total}, "weight_map": weight_map})
    )
    (folder / "config.json").write_text(json.dumps(CONFIG))
    return total


PROBE = r"""
import json, os, sys, time
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
def high_water():
    # VmHWM belongs to this process's memory; ru_maxrss would carry the parent's peak over the fork
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))
folder, how = sys.argv[1], sys.argv[2]
if how == "headdiv":
    from headdiv.workers.models.model_hdi import model_hdi
    run = lambda: model_hdi(folder)
else:
    from safetensors.torch import load_file
    # every tensor touched (summed), as a script that then uses the weights would
    run = lambda: [float(t.float().sum()) for f in sorted(os.listdir(folder)) if f.endswith(".safetensors")
                   for t in load_file(os.path.join(folder, f)).values()]
import numpy, scipy.linalg, torch  # both sides pay the same imports before idle is read
idle = rss()
t = time.perf_counter()
out = run()
wall = time.perf_counter() - t
peak = high_water()
extra = {"layers": len(out.layers), "key_hdi_0": out.layers[0].key_hdi} if how == "headdiv" else {}
print(json.dumps({"idle": idle, "peak": peak, "wall": wall, **extra}))
"""


def probe(folder: Path, how: str) -> dict[str, float]:
    env = {"OPENBLAS_NUM_THREADS": "1"}  # as `headdiv heads` and the server set it
    import os

    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(folder), how],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **env},
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, help="where to keep the checkpoint (default: a temporary folder)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.dir or Path(tmp) / "llama-1b-shaped"
        total = write_checkpoint(folder)
        size = sum(f.stat().st_size for f in folder.glob("*.safetensors"))
        print(f"checkpoint: {total / 1e9:.2f}B parameters, bf16, {SHARDS} shards, {size / 2**30:.2f} GiB")
        rows = {how: probe(folder, how) for how in ("headdiv", "load whole")}
        mb = 2**20
        print("| reader | wall | peak RSS above idle | / load whole |")
        print("|---|---|---|---|")
        whole = rows["load whole"]["peak"] - rows["load whole"]["idle"]
        for how, r in rows.items():
            above = r["peak"] - r["idle"]
            print(f"| {how} | {r['wall']:.1f} s | {above / mb:.0f} MB | {above / whole:.2f} |")
        h = rows["headdiv"]
        print(f"(headdiv measured {h['layers']:.0f} layers; targets ≤ 10 s and ≤ 300 MB above idle)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
