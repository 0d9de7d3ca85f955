#!/usr/bin/env bash
# The session's last device call at COMMIT: the standalone GEMM build (ptxas report), the op's
# whole single-GPU suite (ranks sharing the GPU), the GEMM GPU tests whose plans the planner
# picks (random sample, clusters, split-K, stream-K, inputs, ping-pong), then the SASS stall
# samples of the two ncu reports carried in build/carry-prof (64x128 ping-pong, pairs and
# alone, 1000 x 1000 x 1024).
#   bash bench/results/gemm/2026-12-05-final-check-h100/run.sh COMMIT
set -u
cd "$(dirname "$0")/../../../.."
export SYMM_REQUIRE_GPU=1
W=$OUT/w
mkdir -p "$W"
OUT=$W/build SYMM_GIT_COMMIT=${1:?commit} timeout 240 scripts/gpu-gemm-check.sh build > "$W/build.out" 2>&1
echo "build exit $?"; grep -E "check-ptxas|HGMMA count|planned for" "$W/build.out"
timeout 150 cmake --build build/dev -j 16 --target symm_gemm_all_scatter_test >"$W/op-build.log" 2>&1 ||
  { echo "op test build failed"; grep -E "error|FAILED" "$W/op-build.log" | head; }
g=$W/build/bin/symm_gemm_gpu_test o=build/dev/tests_gpu_ops/symm_gemm_all_scatter_test
timeout 200 "$o" >"$W/op-suite.log" 2>&1
echo "op suite: rc=$?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]" "$W/op-suite.log" | head -20
timeout 120 "$g" --gtest_filter='GemmRandomSample*:GemmCluster*:GemmSplitK*:GemmStreamK*:GemmInputs*:*pingpong*:GemmPingpong*' \
  >"$W/gemm-tests.log" 2>&1
echo "GEMM tests: rc=$?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]" "$W/gemm-tests.log" | head -20
for r in pairs single; do
  timeout 60 ncu -i build/carry-prof/$r.ncu-rep --page source --csv --print-source sass > "$W/$r-source.csv" 2>&1
  echo "$r source: rc=$? $(wc -l < "$W/$r-source.csv") lines"
done
gzip -f "$W"/*-source.csv
rm -rf "$W/build/bin"
