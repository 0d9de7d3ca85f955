# One device call at $1 (waiters that did not claim the record end their threads): the
# standalone GEMM build (ptxas report) and the op's test binary, then both wait-record death
# tests ten times each, the op's whole single-GPU suite (ranks sharing the GPU) and the
# GEMM tests whose waits time out or hand partial sums across blocks.
set -u
export SYMM_REQUIRE_GPU=1
OUT=$OUT/build SYMM_GIT_COMMIT=$1 scripts/gpu-gemm-check.sh build || exit 1
timeout 240 cmake --build build/dev -j 16 --target symm_gemm_all_scatter_test >"$OUT/op-build.log" 2>&1 ||
  { echo "op test build failed"; grep -E "error|FAILED" "$OUT/op-build.log" | head; exit 1; }
g=$OUT/build/bin/symm_gemm_gpu_test o=build/dev/tests_gpu_ops/symm_gemm_all_scatter_test
summary() { grep -hE "^\[ +(OK|FAILED) +\]" "$1" | sed 's/ ([0-9]* ms)//' | sort | uniq -c; }
timeout 90 "$g" --gtest_filter='GemmWaitRecord.*' --gtest_repeat=10 >"$OUT/gemm-wait.log" 2>&1
echo "GemmWaitRecord x10: rc=$?"; summary "$OUT/gemm-wait.log"
timeout 90 "$o" --gtest_filter='GemmAllScatterWaitRecord.*' --gtest_repeat=10 >"$OUT/op-wait.log" 2>&1
echo "GemmAllScatterWaitRecord x10: rc=$?"; summary "$OUT/op-wait.log"
timeout 180 "$o" >"$OUT/op-suite.log" 2>&1
echo "op suite: rc=$?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$OUT/op-suite.log" | head -20
timeout 120 "$g" --gtest_filter='GemmInputs.*:GemmSplitK*:GemmStreamK*:GemmRandomSample*' >"$OUT/gemm-waits.log" 2>&1
echo "GEMM split-K, stream-K, inputs, random sample: rc=$?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$OUT/gemm-waits.log" | head -20
