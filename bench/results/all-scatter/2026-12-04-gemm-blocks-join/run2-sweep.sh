#!/usr/bin/env bash
# Device call (warm machine, the build of run1-join.sh at 6612a80): copy-block counts with
# the GEMM blocks joining the push, one-GPU loopback proxy, bf16, B K x N.
o=/tmp/sweep; mkdir -p $o
e=build/release/examples/10_gemm_all_scatter_wg_specialization/10_gemm_all_scatter_wg_specialization
export SYMM_GEMM_PLAN_CACHE=off
for shape in "2000 4000 3000" "2048 4096 4096" "6120 3400 4104" "1000 1000 1000" "4096 7168 8192" "8192 2304 18432" "4096 4608 36864" "8192 4608 18432"; do
  read -r m n k <<<"$shape"
  for g in 131 130 128 124; do
    SYMM_GIT_COMMIT=6612a80 timeout 60 $e -r 1 --loopback_peers 1 --no_baselines -v -b --n_repeat 20 -m $m -n $n -k $k \
      --variant wg_specialization --gemm_sms $g -o $o/wg-$g-$m-$n-$k.json >> $o/run.log 2>&1 || echo FAILED wg $g $shape
  done
  for c in 1 2 4 8; do
    SYMM_GIT_COMMIT=6612a80 timeout 60 $e -r 1 --loopback_peers 1 --no_baselines -v -b --n_repeat 20 -m $m -n $n -k $k \
      --variant producer_consumer --comm_sms $c -o $o/pc-$c-$m-$n-$k.json >> $o/run.log 2>&1 || echo FAILED pc $c $shape
  done
  SYMM_GIT_COMMIT=6612a80 timeout 60 $e -r 1 --loopback_peers 1 --no_baselines -v -b --n_repeat 20 -m $m -n $n -k $k \
    --variant tma_push,wg_specialization,producer_consumer -o $o/def-0-$m-$n-$k.json >> $o/run.log 2>&1 || echo FAILED def $shape
done
tar czf $OUT/s.tgz -C /tmp sweep
