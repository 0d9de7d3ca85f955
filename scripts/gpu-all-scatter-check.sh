#!/usr/bin/env bash
# GEMM + all-scatter on a GPU machine in one go (device time is scarce): release build,
# the gpu-tier tests of the op and its baselines, the figures, and the main job.
#
#   SYMM_GIT_COMMIT=<commit[-dirty]> scripts/gpu-all-scatter-check.sh [proxy|two-gpu] [figures]
#
# With `figures`, only the figures (build/release already built, e.g. by gpu-check.sh).
# proxy (one GPU): one rank with --loopback_peers 1 and N halved, so each shape does the
#   per-rank work of two ranks and pushes the same bytes, into a second C on the same GPU:
#   the push path's cost on the SMs against our GEMM alone, in the same run (a proxy: no
#   NVLink). two-gpu: one rank per GPU, every variant and baseline, bf16 and fp16.
# Shapes: Iris's sizes and 16384^3. Logs and JSON go to $OUT (default out/all-scatter).
set -uo pipefail
export SYMM_REQUIRE_GPU=1  # on the GPU machine a GPU test that finds no GPU fails (tests/support)
cd "$(dirname "$0")/.."
mode=${1:-proxy}
only=${2:-all}
mkdir -p "${OUT:=out/all-scatter}"
OUT=$(cd "$OUT" && pwd)
export SYMM_RESULTS_DIR=$OUT
failures=()
step() {  # step NAME COMMAND...: output to $OUT/NAME.log, tail printed on failure
  local name=$1 start=$SECONDS
  shift
  "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  printf '%-24s rc=%-3s %4ss\n' "$name" "$rc" "$((SECONDS - start))"
  if [ "$rc" -ne 0 ]; then failures+=("$name"); tail -n 20 "$OUT/$name.log"; fi
  return "$rc"
}

nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
if [ "$only" != figures ]; then
step configure cmake --preset release || exit 1
step build cmake --build --preset release -j "$(nproc)" --target symm_gemm_all_scatter_test \
  symm_baselines_test symm_example_10_gemm_all_scatter_wg_specialization symm-bench || exit 1
step tests ctest --test-dir build/release -L gpu -R "GemmAllScatter|AllScatterBaselines" \
  --output-on-failure --timeout 300
fi
program=build/release/examples/10_gemm_all_scatter_wg_specialization/10_gemm_all_scatter_wg_specialization
shapes=("4096 4608 36864" "8192 4608 36864" "16384 4608 36864" "8192 9216 36864" "8192 4608 18432"
        "16384 16384 16384")
for dtype in bf16 fp16; do
  for shape in "${shapes[@]}"; do
    read -r m n k <<<"$shape"
    name="$mode-$dtype-${m}x${n}x${k}"
    if [ "$mode" = proxy ]; then
      step "$name" "$program" -r 1 --loopback_peers 1 -m "$m" -n $((n / 2)) -k "$k" --datatype "$dtype" \
        --variant all --no_baselines -v -b --n_repeat 30 -o "$OUT/$name.json"
    else
      step "$name" "$program" -m "$m" -n "$n" -k "$k" --datatype "$dtype" --variant all -v -b \
        --n_repeat 50 -o "$OUT/$name.json"
    fi
    grep -E "^ *(tma_push|wg_spec|fused_seq|producer|bulk_sync|gemm_alone|cublaslt|chunked|nccl)" \
      "$OUT/$name.log" | sed "s/^/$dtype ${m}x${n}x${k} /"
  done
  [ "$mode" = proxy ] && [ "$dtype" = bf16 ] && [ -n "${SYMM_QUICK:-}" ] && break
done
if [ "$only" != figures ]; then
  step main-job timeout 300 scripts/main-job.sh build/release
  tail -n 20 "$OUT/main-job.log"
fi
if [ ${#failures[@]} -eq 0 ]; then echo "gpu-all-scatter-check: every step passed"; else
  echo "gpu-all-scatter-check: FAILED: ${failures[*]}"; exit 1; fi
