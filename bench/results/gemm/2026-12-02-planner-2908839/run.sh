#!/usr/bin/env bash
# GPU call: probes of the planner's new picks (one-staging-tile epilogue charged 3 K
# iterations; 64x128 ping-pong pairs rated above their single twin), untuned (--no-tune)
# beside the forced alternatives, then the presets.
set -u
cd "$(dirname "$0")/../../../.."
B=build/carry
tar xJf $B/bin.tar.xz -C $B
export SYMM_REQUIRE_GPU=1 SYMM_GEMM_PLAN_CACHE=off
C=$(cat $B/COMMIT)
nvidia-smi --query-gpu=name,driver_version --format=csv | tee $OUT/gpu.txt
probe() {  # M N K dtype layout [symm-bench arguments]
  echo "== $*"
  local m=$1 n=$2 k=$3 dt=$4 l=$5; shift 5
  timeout 40 $B/symm-bench gemm --mnk $m $n $k --dtype $dt --layout $l --repeats 2 "$@" 2>&1 | grep -E "^ +[0-9]|rror"
}
{
probe 12296 2792 1000 fp16 nk --no-tune
probe 12296 2792 1000 fp16 nk --config 152x256x64s4c2-swapped
probe 12296 2792 1000 fp16 nk --config 128x256x64s4c2
probe 12296 2792 1000 bf16 kn --no-tune
probe 12296 2792 1000 bf16 kn --config 128x256x64s4c2
probe 1000 1000 1000 fp16 nk --no-tune
probe 1000 1000 1000 bf16 kn --no-tune
probe 1000 1000 1000 bf16 kn --config 64x128x64s8-pingpong
} 2>&1 | tee $OUT/probe.log
SYMM_GIT_COMMIT=$C OUT=$OUT/presets timeout 300 scripts/gpu-gemm-check.sh presets > $OUT/presets.log 2>&1
echo "presets exit $?"; grep -E "geomean|PASSED|FAILED|==" $OUT/presets.log | tail -25
tar czf $OUT/presets.tgz -C $OUT/presets . && rm -rf $OUT/presets
