# One device call for branch producer-skip-past (skip-past.patch in the tree: the branch's
# diff against main $1): build it (Release, standalone GEMM project), its cluster and
# random-sample GEMM tests, the op's test binary and its single-GPU tests (ranks sharing the
# GPU), then the cluster probes: each cluster configuration beside the same tile without a
# cluster (which the branch leaves as it was), against cuBLASLt in the same run.
set -u
d=bench/results/gemm/2026-12-05-skip-past-run
patch -p1 <skip-past.patch >"$OUT/patch.log" 2>&1 || { echo "patch failed"; cat "$OUT/patch.log"; exit 1; }
OUT=$OUT/branch SYMM_GIT_COMMIT=$1+skip-past scripts/gpu-gemm-check.sh build || exit 1
export SYMM_REQUIRE_GPU=1
timeout 150 "$OUT/branch/bin/symm_gemm_gpu_test" \
  --gtest_filter='GemmCluster*:*c1x4*:*c2*:GemmRandomSample*' >"$OUT/cluster-tests.log" 2>&1
echo "branch cluster tests: rc=$?"; grep -E "PASSED|FAILED" "$OUT/cluster-tests.log" | head -20
timeout 200 cmake --build build/dev -j 16 --target symm_gemm_all_scatter_test >"$OUT/op-test-build.log" 2>&1
echo "op test build: rc=$?"
timeout 150 build/dev/tests_gpu_ops/symm_gemm_all_scatter_test >"$OUT/op-tests.log" 2>&1
echo "branch op tests: rc=$?"; grep -E "PASSED|FAILED|SKIPPED \]" "$OUT/op-tests.log" | head -20
OUT=$OUT/branch SYMM_GIT_COMMIT=$1+skip-past PROBES=$d/probes.txt GPU_TESTS=0 scripts/gpu-gemm-check.sh probes
