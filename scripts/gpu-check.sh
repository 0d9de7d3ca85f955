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
# SYMM_CHECK_DEADLINE_S (default 570): every step gets at most what is left of it, so a
# hang never takes the device call's last seconds, where the caller packs the logs.
set -uo pipefail
[ -n "${SYMM_GIT_COMMIT:-}" ] || {
  echo "gpu-check: give SYMM_GIT_COMMIT=<commit>: the GPU machine's copy of the tree cannot say which it is" >&2
  exit 2
}
deadline=${SYMM_CHECK_DEADLINE_S:-570}
left() {  # left [CAP]: seconds left of the deadline (at least 30), at most CAP
  local s=$((deadline - SECONDS))
  s=$((s > 30 ? s : 30))
  echo $((${1:-$s} < s ? ${1:-$s} : s))
}
export SYMM_REQUIRE_GPU=1  # on the GPU machine a GPU test that finds no GPU fails (tests/support)
export SYMM_GEMM_PLAN_CACHE=off  # measure the kernels built here, not plans recorded earlier
cd "$(dirname "$0")/.."
mkdir -p "${OUT:=out/gpu-check}"
OUT=$(cd "$OUT" && pwd)
export SYMM_RESULTS_DIR=$OUT
failures=()
step() {  # step NAME COMMAND...: output to $OUT/NAME.log, tail printed on failure
  local name=$1 start=$SECONDS
  shift
  "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  printf '%-12s rc=%-3s %4ss\n' "$name" "$rc" "$((SECONDS - start))"
  if [ "$rc" -ne 0 ]; then failures+=("$name"); tail -n 30 "$OUT/$name.log"; fi
  return "$rc"
}

nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
step configure cmake --preset release || exit 1
step build timeout -k 10 "$(left)" cmake --build --preset release -j "$(nproc)" || exit 1
step main-job timeout -k 10 "$(left 300)" scripts/main-job.sh build/release
tail -n 25 "$OUT/main-job.log"
# The main job's short sweep against the committed thresholds (bench/thresholds.json).
step perf-check tools/report/perf-check check "$OUT/sweep-short.jsonl"
grep -E "^(FAIL|NO THRESHOLD)|^perf-check:" "$OUT/perf-check.log"
hgmma=$(cuobjdump --dump-sass build/release/kernels/gemm/libsymm_gemm.a 2>/dev/null | grep -c HGMMA)
echo "HGMMA instructions in the GEMM library: $hgmma"
[ "$hgmma" -gt 0 ] || failures+=("sass")
# Each tier as a whole is bounded: a test's own TIMEOUT property (up to 600 s) overrides
# ctest's --timeout, so a hang there would otherwise take the call's whole budget.
CUDA_VISIBLE_DEVICES=0 step gpu-tier timeout -k 10 "$(left)" ctest --test-dir build/release -L gpu \
  --output-on-failure --output-junit "$OUT/ctest-gpu.xml" --timeout 300
step multigpu timeout -k 10 "$(left 300)" ctest --test-dir build/release -L multigpu --output-on-failure \
  --output-junit "$OUT/ctest-multigpu.xml" --timeout 240
for tier in gpu-tier multigpu; do
  grep -E "tests passed|tests failed|\(Skipped\)|\(Failed\)|Timeout" "$OUT/$tier.log" | tail -n 30
done

if [ ${#failures[@]} -eq 0 ]; then echo "gpu-check: every step passed"; else
  echo "gpu-check: FAILED: ${failures[*]}"; exit 1; fi
