#!/usr/bin/env bash
# 64-row ping-pong tiles in 4 x 1 clusters on 1000^3: the build, the probes (ratio to
# cuBLASLt, each tile forced; $PROBES, default probes.txt), the GPU tests matching
# $TEST_FILTER (default: the quads' and the cluster tests), the presets of $PRESET_RUNS
# (scripts/gpu-gemm-check.sh's format; "all": its default runs; empty: none), then, while
# DEADLINE_S (default 570) seconds of the call are left, ncu kernel durations of
# $DURATION_PROBES (default duration-probes.txt).
#   scripts/device-call.sh quads64 590 env SYMM_GIT_COMMIT=COMMIT PRESET_RUNS=all bash bench/results/gemm/2026-12-06-quads-64row/run.sh
set -u
cd "$(dirname "$0")/../../../.."
D=bench/results/gemm/2026-12-06-quads-64row
deadline=$((SECONDS + ${DEADLINE_S:-570}))
GPU_TESTS=0 PROBES=$D/${PROBES:-probes.txt} scripts/gpu-gemm-check.sh probes
echo "probes: exit $?"
timeout 120 build/dev/tests_gpu_gemm/symm_gemm_gpu_test --gtest_filter="${TEST_FILTER:-*c4_pingpong*:GemmCluster*}" \
  >"$OUT/tests.log" 2>&1
echo "tests: exit $?"
grep -E "^\[  FAILED|PASSED|FAILED TEST|tests ran" "$OUT/tests.log" | head -20
if [ -n "${PRESET_RUNS:-}" ]; then
  [ "$PRESET_RUNS" = all ] && unset PRESET_RUNS
  GPU_TESTS=0 timeout $((deadline - SECONDS)) env OUT="$OUT/presets" scripts/gpu-gemm-check.sh presets >"$OUT/presets.out" 2>&1
  echo "presets: exit $?"
  grep -E "^==|geomean" "$OUT/presets.out"
fi
left=$((deadline - SECONDS))
((left > 60)) || { echo "durations: skipped, $left s left"; exit 0; }
GPU_TESTS=0 PROBES=$D/${DURATION_PROBES:-duration-probes.txt} timeout "$left" env OUT="$OUT/durations" \
  scripts/gpu-gemm-check.sh durations >"$OUT/durations.out" 2>&1
echo "durations: exit $?"
cut -c1-160 "$OUT/durations/durations.txt" | head -60
