#!/usr/bin/env bash
# warp-release-all.patch (every stage released by lane 0 of consumer warp r for cluster
# rank r, every configuration: GemmSmem::release) applied, then #10's presets, the whole
# GEMM GPU suite and, while time is left, ncu durations of the quads
# (duration-probes.txt), all within DEADLINE_S (default 560) seconds:
#   scripts/device-call.sh presets 590 env SYMM_GIT_COMMIT=COMMIT bash bench/results/gemm/2026-12-06-presets-warp-release/run.sh
set -u
cd "$(dirname "$0")/../../../.."
D=bench/results/gemm/2026-12-06-presets-warp-release
deadline=$((SECONDS + ${DEADLINE_S:-560}))
git apply "$D/warp-release-all.patch" || { echo "warp-release-all.patch did not apply"; exit 1; }
GPU_TESTS=0 timeout $((deadline - SECONDS - 100)) env OUT="$OUT/presets" scripts/gpu-gemm-check.sh presets \
  >"$OUT/presets.out" 2>&1
echo "presets: exit $?"
grep -E "^==|geomean|below" "$OUT/presets.out"
left=$((deadline - SECONDS))
timeout $((left > 200 ? 200 : left)) build/dev/tests_gpu_gemm/symm_gemm_gpu_test >"$OUT/tests.log" 2>&1
echo "tests: exit $?"
grep -E "^\[  FAILED|PASSED|FAILED TEST|tests ran" "$OUT/tests.log" | head -20
left=$((deadline - SECONDS))
((left > 40)) || { echo "durations: skipped, $left s left"; exit 0; }
GPU_TESTS=0 PROBES=$D/duration-probes.txt timeout "$left" env OUT="$OUT/durations" \
  scripts/gpu-gemm-check.sh durations >"$OUT/durations.out" 2>&1
echo "durations: exit $?"
grep -E "^== durations|^64x" "$OUT/durations/durations.txt" | cut -c1-100
