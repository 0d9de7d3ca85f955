#!/usr/bin/env bash
# GPU call: decode-sized M (1 to 512 rows against wide N and K), which no preset has:
# tuned and untuned (--no-tune) plans against cuBLASLt, bf16, B as N x K and K x N.
set -u
cd "$(dirname "$0")/../../../.."
B=build/carry
tar xJf $B/bin.tar.xz -C $B
export SYMM_REQUIRE_GPU=1 SYMM_GEMM_PLAN_CACHE=off
nvidia-smi --query-gpu=name,driver_version --format=csv | tee $OUT/gpu.txt
probe() {  # M N K dtype layout [symm-bench arguments]
  echo "== $*"
  local m=$1 n=$2 k=$3 dt=$4 l=$5; shift 5
  timeout 40 $B/symm-bench gemm --mnk $m $n $k --dtype $dt --layout $l --repeats 2 "$@" 2>&1 | grep -E "^ +[0-9]|rror|nvalid"
}
{
for shape in "1 8192 8192" "8 8192 8192" "16 8192 8192" "64 8192 8192" "128 8192 8192" "256 8192 8192" \
             "512 8192 8192" "64 4096 4096" "128 28672 4096" "256 4096 14336" "32 14336 4096"; do
  probe $shape bf16 nk
  probe $shape bf16 nk --no-tune
  probe $shape bf16 kn
done
} 2>&1 | tee $OUT/probe.log
