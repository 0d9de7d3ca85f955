#!/usr/bin/env bash
# Both GEMM kits in one device call (one build): ../2026-12-07-swapped144x64-quads-plan
# (144x64 swapped quads, forced) and ../2026-12-06-decode-swapped32 (32x128 swapped tiles
# and the per-block memory floor in the planner). Applies both patches, runs probes.txt, the
# new tiles' GEMM and fused-op GPU tests and, while time is left, the 144x64 kit's ncu
# durations, within DEADLINE_S (default 560) seconds:
#   scripts/device-call.sh kits 590 env SYMM_GIT_COMMIT=COMMIT bash bench/results/gemm/2026-12-07-two-kits/run.sh
set -u
cd "$(dirname "$0")/../../../.."
D=bench/results/gemm
deadline=$((SECONDS + ${DEADLINE_S:-560}))
for patch in $D/2026-12-07-swapped144x64-quads-plan/swapped144x64.patch $D/2026-12-06-decode-swapped32/decode-planner.patch; do
  git apply "$patch" || { echo "$patch did not apply"; exit 1; }
done
GPU_TESTS=0 PROBES=$D/2026-12-07-two-kits/probes.txt timeout $((deadline - SECONDS - 130)) env OUT="$OUT/probes" \
  scripts/gpu-gemm-check.sh probes >"$OUT/probes.out" 2>&1
echo "probes: exit $?"
grep -E "^== probe|^ +[0-9]+ " "$OUT/probes.out" | cut -c1-140
timeout 60 build/dev/tests_gpu_gemm/symm_gemm_gpu_test \
  --gtest_filter="*144x64*:*32x128*:GemmSplitK.Every*:GemmCluster*" >"$OUT/tests.log" 2>&1
echo "gemm tests: exit $?"
grep -E "^\[  FAILED|PASSED|FAILED TEST" "$OUT/tests.log" | head -20
left=$((deadline - SECONDS))
timeout $((left > 150 ? 150 : (left > 10 ? left : 10))) bash -c 'cmake --build build/dev -j "$(nproc)" --target symm_gemm_all_scatter_test >/dev/null &&
  build/dev/tests_gpu_ops/symm_gemm_all_scatter_test --gtest_filter="*EveryPushOnlyConfig*144x64*:*EveryPushOnlyConfig*32x128*"' \
  >"$OUT/op.log" 2>&1
echo "op tests: exit $?"
grep -E "^\[  FAILED|PASSED|FAILED TEST" "$OUT/op.log" | head -10
left=$((deadline - SECONDS))
((left > 40)) || { echo "durations: skipped, $left s left"; exit 0; }
GPU_TESTS=0 PROBES=$D/2026-12-07-swapped144x64-quads-plan/duration-probes.txt timeout "$left" \
  env OUT="$OUT/durations" scripts/gpu-gemm-check.sh durations >"$OUT/durations.out" 2>&1
echo "durations: exit $?"
grep -E "^== durations|^144x|^64x" "$OUT/durations/durations.txt" | cut -c1-100
