# One device call with the GPU test binaries built on the build machine at the commit
# (stripped, carried as build/carry2/tests.tar.xz; ptxas checked there): the timed-out-wait
# records, GEMM and op death tests (5 runs each; GemmInputs beside them), and the op's failure tests, whose
# diagnostics come from those records.
set -u
mkdir -p /tmp/w && tar xJf build/carry2/tests.tar.xz -C /tmp/w || exit 1
export SYMM_REQUIRE_GPU=1
timeout 100 /tmp/w/symm_gemm_gpu_test --gtest_filter='GemmWaitRecord.*:GemmInputs.*' --gtest_repeat=5 >"$OUT/gemm-wait.log" 2>&1
echo "gemm wait records: rc=$?"
timeout 150 /tmp/w/symm_gemm_all_scatter_test \
  --gtest_filter='GemmAllScatterWaitRecord.*:GemmAllScatter/LateHalf.*:GemmAllScatterFailures.*' >"$OUT/op-wait.log" 2>&1
echo "op wait records and failures: rc=$?"
timeout 60 /tmp/w/symm_gemm_all_scatter_test --gtest_filter='GemmAllScatterWaitRecord.*' --gtest_repeat=4 \
  >>"$OUT/op-wait.log" 2>&1
echo "op wait record, 4 more: rc=$?"
grep -hE "^\[ +(OK|FAILED) +\]" "$OUT/gemm-wait.log" "$OUT/op-wait.log" | sed 's/ ([0-9]* ms)//' | sort | uniq -c
nvidia-smi --query-gpu=name,driver_version --format=csv >"$OUT/gpu.txt"
