#!/usr/bin/env bash
# swapped144x64.patch (a swapped schedule of one consumer; 144x64x64s8c1x4-swapped built)
# applied, then the new tile's GEMM and fused-op GPU tests, probes.txt against cuBLASLt and,
# while time is left, ncu durations (duration-probes.txt), all within DEADLINE_S (default
# 560) seconds:
#   scripts/device-call.sh quads144 590 env SYMM_GIT_COMMIT=COMMIT bash bench/results/gemm/2026-12-07-swapped144x64-quads-plan/run.sh
set -u
cd "$(dirname "$0")/../../../.."
D=bench/results/gemm/2026-12-07-swapped144x64-quads-plan
deadline=$((SECONDS + ${DEADLINE_S:-560}))
git apply "$D/swapped144x64.patch" || { echo "swapped144x64.patch did not apply"; exit 1; }
GPU_TESTS=0 PROBES=$D/probes.txt timeout $((deadline - SECONDS - 150)) env OUT="$OUT/probes" \
  scripts/gpu-gemm-check.sh probes >"$OUT/probes.out" 2>&1
echo "probes: exit $?"
grep -E "^== probe|^ +[0-9]+ " "$OUT/probes.out" | cut -c1-140
timeout 120 build/dev/tests_gpu_gemm/symm_gemm_gpu_test \
  --gtest_filter="*144x64*:GemmCluster*:GemmSplitK.Every*:Seeded/GemmRandomSample*" >"$OUT/tests.log" 2>&1
echo "gemm tests: exit $?"
grep -E "^\[  FAILED|PASSED|FAILED TEST" "$OUT/tests.log" | head -20
left=$((deadline - SECONDS))
timeout $((left > 150 ? 150 : left)) bash -c 'cmake --build build/dev -j "$(nproc)" --target symm_gemm_all_scatter_test >/dev/null &&
  build/dev/tests_gpu_ops/symm_gemm_all_scatter_test --gtest_filter="*EveryPushOnlyConfig*144x64*"' >"$OUT/op.log" 2>&1
echo "op tests: exit $?"
grep -E "^\[  FAILED|PASSED|FAILED TEST" "$OUT/op.log" | head -10
left=$((deadline - SECONDS))
((left > 40)) || { echo "durations: skipped, $left s left"; exit 0; }
GPU_TESTS=0 PROBES=$D/duration-probes.txt timeout "$left" env OUT="$OUT/durations" \
  scripts/gpu-gemm-check.sh durations >"$OUT/durations.out" 2>&1
echo "durations: exit $?"
grep -E "^== durations|^144x|^64x" "$OUT/durations/durations.txt" | cut -c1-100
