#!/usr/bin/env bash
# GPU call: build the commit (branch row-column-release: the release to a cluster's row and
# column only, plus the experiment's 128x128x64s6 in 4 x 2 clusters), the cluster GPU tests,
# then probes.txt (forced configurations against cuBLASLt, 2 alternating repeats).
#   bash bench/results/gemm/2026-12-05-row-column-release/run.sh COMMIT
set -u
cd "$(dirname "$0")/../../../.."
D=bench/results/gemm/2026-12-05-row-column-release
C=${1:?commit}
W=$OUT/w
mkdir -p "$W"
SYMM_GIT_COMMIT=$C timeout 300 env OUT=$W/build scripts/gpu-gemm-check.sh build > "$W/build.out" 2>&1
echo "build exit $?"; tail -3 "$W/build.out"
BIN=$W/build/bin
SYMM_REQUIRE_GPU=1 timeout 120 "$BIN/symm_gemm_gpu_test" --gtest_filter='GemmCluster*:GemmSplitK*' > "$W/cluster_tests.log" 2>&1
echo "cluster tests exit $?"; grep -E "^\[  (FAILED|PASSED) |tests ran" "$W/cluster_tests.log" | head
SYMM_GIT_COMMIT=$C GPU_TESTS=0 PROBES=$D/probes.txt timeout 240 env OUT=$W/probes scripts/gpu-gemm-check.sh probes > "$W/probes.out" 2>&1
echo "probes exit $?"; grep -E "^ +[0-9]" "$W/probes/probes.log"
rm -rf "$W/build/bin" "$W/probes/bin"
