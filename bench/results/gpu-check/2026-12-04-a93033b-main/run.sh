#!/usr/bin/env bash
# Device call: the main job and perf-check at HEAD (push role in two warps), then the op
# GPU tests repeated (flakiness of the new push).
set -u
o=/tmp/final; mkdir -p $o
export SYMM_REQUIRE_GPU=1 SYMM_GEMM_PLAN_CACHE=off SYMM_GIT_COMMIT=${1:?commit} SYMM_RESULTS_DIR=$o
start=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt
cmake --preset release > $o/configure.log 2>&1 && timeout 240 cmake --build --preset release -j 16 > $o/build.log 2>&1
echo "build rc=$? $((SECONDS - start)) s"
timeout 100 scripts/main-job.sh build/release > $o/main-job.log 2>&1
echo "main-job rc=$? $((SECONDS - start)) s"; tail -n 22 $o/main-job.log
tools/report/perf-check check $o/sweep-short.jsonl > $o/perf-check.log 2>&1
echo "perf-check rc=$?"; grep -E "^(FAIL|NO THRESHOLD)|^perf-check:" $o/perf-check.log
left=$((400 - (SECONDS - start)))
if [ $left -gt 60 ]; then
  CUDA_VISIBLE_DEVICES=0 timeout $left build/release/tests/gpu/ops/symm_gemm_all_scatter_test --gtest_repeat=3 \
    --gtest_filter='*RandomSchedules*:*CopyBlocksAhead*:*LoopbackPeers*:*wg_specialization*:*producer_consumer*:*bulk_synchronous*:*EveryWorld*' > $o/ops-repeat.log 2>&1
  echo "ops repeat rc=$? $((SECONDS - start)) s: $(grep -cE '^\[       OK' $o/ops-repeat.log) OK, $(grep -cE '^\[  FAILED  \]' $o/ops-repeat.log) FAILED lines"
fi
gzip -f $o/*.log
tar czf $OUT/r.tgz -C /tmp final
