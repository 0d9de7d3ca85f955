# One device call (asked for an H200, given an H100): the standalone GEMM build of the tree (main $1 with the
# wait-record change uncommitted; should that fail to build, main's own wait records from
# build/carry3 and a rebuild), the GEMM's wait-record death tests ten times, then the
# probes of ../2026-12-05-skip-past/probes-refit.txt (run on an H100 there), for a model
# term fitted to both GPUs.
set -u
build() { OUT=$OUT/h200 SYMM_GIT_COMMIT=$1 scripts/gpu-gemm-check.sh build; }
label=$1+waitrec
if ! build "$label"; then
  echo "the tree did not build: main's wait records back"
  cp build/carry3/device_wait_record.cuh include/symm/device/wait_record.cuh
  cp build/carry3/gemm_wait_record.cuh include/symm/gemm/wait_record.cuh
  label=$1
  build "$label" || exit 1
fi
SYMM_REQUIRE_GPU=1 timeout 60 "$OUT/h200/bin/symm_gemm_gpu_test" --gtest_filter='GemmWaitRecord.*' \
  --gtest_repeat=10 >"$OUT/gemm-wait.log" 2>&1
echo "GemmWaitRecord x10 ($label): rc=$?"
grep -hE "^\[ +(OK|FAILED) +\]" "$OUT/gemm-wait.log" | sed 's/ ([0-9]* ms)//' | sort | uniq -c
OUT=$OUT/h200 SYMM_GIT_COMMIT=$label PROBES=bench/results/gemm/2026-12-05-skip-past/probes-refit.txt GPU_TESTS=0 \
  scripts/gpu-gemm-check.sh probes
