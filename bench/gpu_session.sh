#!/usr/bin/env bash
# One lease of a GPU machine, prepared here and run there in one call (device time is scarce):
#   1. bench/bench_gpu.py alone (its timings are docs/performance.md's "On a GPU" table)
#   2. the engine's tests on CUDA (HEADDIV_TEST_DEVICE=cuda: a missing GPU fails them) beside
#      bench/gpu_scaled.py (redis-server, `headdiv serve`, a `headdiv worker` on the GPU, a worker
#      killed mid-surface and restarted)
# The machine has torch but not the web stack: the wheels in .whl/ (pip download, see CONTRIBUTING) are
# installed first, and a redis-server binary with its libraries travels in .gpu/redis/.
# Logs: $OUT/{bench,tests,scaled}.txt as they are written, the rest in $OUT/logs.tgz at the end.
set -u
OUT=${OUT:-/tmp/gpu-out}
LOGS=/tmp/gpu-logs
mkdir -p "$OUT" "$LOGS"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
  > "$LOGS/pip.txt" 2>&1 || { tail -5 "$LOGS/pip.txt"; exit 1; }
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version,clocks.sm --format=csv | tee "$LOGS/nvidia-smi.txt"
python3 -c "import torch, pydantic, fastapi, rq, redis, dash; print('torch', torch.__version__, torch.cuda.get_device_name())" \
  || exit 1

echo "== bench $(date +%T)"
OUT=$LOGS timeout "${BENCH_S:-200}" python3 bench/bench_gpu.py > "$OUT/bench.txt" 2>&1
echo "bench rc $?" >> "$OUT/bench.txt"

echo "== tests and scaled run $(date +%T)"
(
  HEADDIV_TEST_DEVICE=cuda timeout "${TESTS_S:-240}" python3 -m pytest tests/engine -k cuda -q -s -p no:cacheprovider \
    --timeout 120 > "$OUT/tests.txt" 2>&1
  echo "pytest rc $?" >> "$OUT/tests.txt"
) &
if [ "${SCALED_S:-200}" != 0 ]; then  # SCALED_S=0 leaves the scaled run out (a rerun of the rest)
  OUT=$LOGS timeout "${SCALED_S:-200}" python3 bench/gpu_scaled.py --device cuda > "$OUT/scaled.txt" 2>&1
  echo "scaled rc $?" >> "$OUT/scaled.txt"
fi
wait
tar czf "$OUT/logs.tgz" -C "$LOGS" . 2>/dev/null
echo "== done $(date +%T)"
grep -v "^frame\|^\[W\|Exception raised\|omitting python" "$OUT/bench.txt" | head -80
tail -n 25 "$OUT/tests.txt"
tail -n 30 "$OUT/scaled.txt" 2>/dev/null
