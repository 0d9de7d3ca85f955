# One device call: the standalone GEMM build (ptxas checked), the op's GPU test, then the
# timed-out-wait records: GEMM and op death tests (5 repeats each) and the op's failure
# tests, whose diagnostics come from those records. $1: the commit.
set -u
OUT=$OUT SYMM_GIT_COMMIT=$1 scripts/gpu-gemm-check.sh build >"$OUT/build-step.log" 2>&1
tail -3 "$OUT/build-step.log"
timeout 200 cmake --build build/dev -j 16 --target symm_gemm_all_scatter_test >"$OUT/op-build.log" 2>&1 ||
  { echo "op test build failed"; tail -5 "$OUT/op-build.log"; }
export SYMM_REQUIRE_GPU=1
timeout 120 "$OUT/bin/symm_gemm_gpu_test" --gtest_filter='GemmWaitRecord.*' --gtest_repeat=5 >"$OUT/gemm-wait.log" 2>&1
echo "gemm wait records: rc=$?"
timeout 240 build/dev/tests_gpu_ops/symm_gemm_all_scatter_test --gtest_repeat=1 \
  --gtest_filter='GemmAllScatterWaitRecord.*:GemmAllScatter/LateHalf.*:GemmAllScatterFailures.*' >"$OUT/op-wait.log" 2>&1
echo "op wait records and failures: rc=$?"
timeout 60 build/dev/tests_gpu_ops/symm_gemm_all_scatter_test --gtest_repeat=4 \
  --gtest_filter='GemmAllScatterWaitRecord.*' >>"$OUT/op-wait.log" 2>&1
echo "op wait record, 4 more: rc=$?"
grep -hE "^\[ +(OK|FAILED) +\]" "$OUT/gemm-wait.log" "$OUT/op-wait.log" | sed 's/ ([0-9]* ms)//' | sort | uniq -c
