# One device call: main and branch producer-skip-past (skip-past.patch, the branch's diff
# against main) built side by side (the branch's build niced, in the background); main's
# cluster probes and the refit probes, then the host-memory refusal tests on main; then the
# branch's cluster tests and the cluster probes on the branch. $1: main's commit.
set -u
d=bench/results/gemm/2026-12-05-skip-past
rm -rf /tmp/br && mkdir /tmp/br && tar cf - --exclude=./build . | tar xf - -C /tmp/br
(cd /tmp/br && patch -p1 <skip-past.patch) >"$OUT/patch.log" 2>&1 || { echo "patch failed"; cat "$OUT/patch.log"; exit 1; }
mkdir -p "$OUT/branch"
(cd /tmp/br && OUT=$OUT/branch SYMM_GIT_COMMIT=$1+skip-past nice -n 19 scripts/gpu-gemm-check.sh build \
  >"$OUT/branch/build-step.log" 2>&1) &
echo "== main: build, probes, host-memory refusal tests"
cat $d/probes-both.txt $d/probes-refit.txt >/tmp/main-probes.txt
OUT=$OUT/main SYMM_GIT_COMMIT=$1 PROBES=/tmp/main-probes.txt GPU_TESTS=0 scripts/gpu-gemm-check.sh probes
SYMM_REQUIRE_GPU=1 timeout 60 "$OUT/main/bin/symm_gemm_gpu_test" --gtest_filter='GemmInputs*' >"$OUT/main/inputs-test.log" 2>&1
echo "main GemmInputs: rc=$?"; grep -E "OK|FAILED|Failure" "$OUT/main/inputs-test.log" | head
timeout 240 cmake --build build/dev -j 16 --target symm_gemm_all_scatter_test >"$OUT/main/op-test-build.log" 2>&1 &&
  SYMM_REQUIRE_GPU=1 timeout 60 build/dev/tests_gpu_ops/symm_gemm_all_scatter_test \
    --gtest_filter='*RanksThatDisagree*' >"$OUT/main/op-refusals.log" 2>&1
echo "main op refusals: rc=$?"; grep -E "OK|FAILED|Failure" "$OUT/main/op-refusals.log" | head
echo "== branch: wait for its build, cluster tests, probes"
wait
tail -5 "$OUT/branch/build-step.log"
SYMM_REQUIRE_GPU=1 timeout 150 "$OUT/branch/bin/symm_gemm_gpu_test" \
  --gtest_filter='GemmCluster*:*c1x4*:*c2*:GemmRandomSample*' >"$OUT/branch/cluster-tests.log" 2>&1
echo "branch cluster tests: rc=$?"; grep -E "PASSED|FAILED" "$OUT/branch/cluster-tests.log" | head -20
(cd /tmp/br && OUT=$OUT/branch SYMM_GIT_COMMIT=$1+skip-past PROBES=$d/probes-both.txt GPU_TESTS=0 \
  scripts/gpu-gemm-check.sh probes)
