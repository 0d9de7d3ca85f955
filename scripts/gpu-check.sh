#!/usr/bin/env bash
# Everything the GPU machine checks, in one call (device time is scarce):
#   build (release preset) -> main job (with the short sweep) -> perf-check of the short
#   sweep against bench/thresholds.json -> SASS check (HGMMA) -> gpu tier on ONE GPU
#   (multi-rank tests oversubscribe it) -> multigpu tier on every GPU.
# The main job goes first: it takes seconds and the tiers minutes, so a call that runs out
# of time still has it.
# Logs, CTest's JUnit report and results JSON go to $OUT (default out/gpu-check).
#
#   SYMM_GIT_COMMIT=<commit[-dirty]> scripts/gpu-check.sh
# The GPU machine's copy of the tree has no git history: pass the commit in (required).
# SYMM_CHECK_DEADLINE_S (default 570): every step ends by then (scripts/lib/step.sh), so a
# hang never takes the device call's last seconds, where the caller packs the logs; a step
# with no time left is not started and fails the check.
set -uo pipefail
[ -n "${SYMM_GIT_COMMIT:-}" ] || {
  echo "gpu-check: give SYMM_GIT_COMMIT=<commit>: the GPU machine's copy of the tree cannot say which it is" >&2
  exit 2
}
export SYMM_REQUIRE_GPU=1  # on the GPU machine a GPU test that finds no GPU fails (tests/support)
export SYMM_GEMM_PLAN_CACHE=off  # measure the kernels built here, not plans recorded earlier
cd "$(dirname "$0")/.."
mkdir -p "${OUT:=out/gpu-check}"
OUT=$(cd "$OUT" && pwd)
export SYMM_RESULTS_DIR=$OUT
STEP_LOGS=$OUT STEP_DEADLINE_S=${SYMM_CHECK_DEADLINE_S:-570}
failures=()
source scripts/lib/step.sh

step gpu 30 nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv
cat "$OUT/gpu.log" 2>/dev/null
step configure 120 cmake --preset release || exit 1
step build 600 cmake --build --preset release -j "$(nproc)" || exit 1
step main-job 300 scripts/main-job.sh build/release
tail -n 25 "$OUT/main-job.log" 2>/dev/null
# The main job's short sweep against the committed thresholds (bench/thresholds.json).
step perf-check 60 tools/report/perf-check check "$OUT/sweep-short.jsonl"
grep -sE "^(FAIL|NO THRESHOLD)|^perf-check:" "$OUT/perf-check.log"
step sass 60 bash -c 'n=$(cuobjdump --dump-sass "$1" | grep -c HGMMA)
  echo "HGMMA instructions in the GEMM library: $n"; [ "$n" -gt 0 ]' sass build/release/kernels/gemm/libsymm_gemm.a
cat "$OUT/sass.log" 2>/dev/null
# Each tier as a whole is bounded: a test's own TIMEOUT property (up to 600 s) overrides
# ctest's --timeout, so a hang there would otherwise take the call's whole budget.
CUDA_VISIBLE_DEVICES=0 step gpu-tier 600 ctest --test-dir build/release -L gpu \
  --output-on-failure --output-junit "$OUT/ctest-gpu.xml" --timeout 300
step multigpu 300 ctest --test-dir build/release -L multigpu --output-on-failure \
  --output-junit "$OUT/ctest-multigpu.xml" --timeout 240
for tier in gpu-tier multigpu; do
  [ -f "$OUT/$tier.log" ] && grep -E "tests passed|tests failed|\(Skipped\)|\(Failed\)|Timeout" "$OUT/$tier.log" | tail -n 30
done

if [ ${#failures[@]} -eq 0 ]; then echo "gpu-check: every step passed"; else
  printf 'gpu-check: FAILED: %s\n' "${failures[@]}"; exit 1; fi
