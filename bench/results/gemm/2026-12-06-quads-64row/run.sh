#!/usr/bin/env bash
# 64-row ping-pong tiles in 4 x 1 clusters on 1000^3: build, the new configurations' GPU
# tests, the probes (ratio to cuBLASLt), then ncu kernel durations of the three tiles.
#   scripts/device-call.sh quads64 590 env SYMM_GIT_COMMIT=COMMIT bash bench/results/gemm/2026-12-06-quads-64row/run.sh
set -u
cd "$(dirname "$0")/../../../.."
D=bench/results/gemm/2026-12-06-quads-64row
GPU_TESTS=0 PROBES=$D/probes.txt scripts/gpu-gemm-check.sh probes
echo "probes: exit $?"
timeout 120 build/dev/tests_gpu_gemm/symm_gemm_gpu_test --gtest_filter='*s6c4*:GemmCluster*' >"$OUT/tests.log" 2>&1
echo "tests: exit $?"
grep -E "^\[  FAILED|PASSED|FAILED TEST|tests ran" "$OUT/tests.log" | head -20
GPU_TESTS=0 PROBES=$D/duration-probes.txt timeout 200 env OUT="$OUT/durations" scripts/gpu-gemm-check.sh durations >"$OUT/durations.out" 2>&1
echo "durations: exit $?"
cut -c1-160 "$OUT/durations/durations.txt" | head -60
