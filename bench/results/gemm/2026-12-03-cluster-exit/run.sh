#!/usr/bin/env bash
# Device call: which part of the 2-block cluster path costs a fixed ~1.2 us (K = 64).
set -u
o=/tmp/prof3; mkdir -p $o
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 SYMM_GEMM_PLAN_CACHE=off
start=$SECONDS
pg=include/symm/gemm/persistent_gemm.cuh; pl=include/symm/gemm/pipeline.cuh
for v in v0 v1 v2 v3; do mkdir -p /tmp/$v; tar cf - --exclude=./build . | tar xf - -C /tmp/$v; done
# v1: the closing cluster barrier without release/acquire
sed -i 's/    if constexpr (Cfg::CLUSTERED) Smem::sync_cluster();/    if constexpr (Cfg::CLUSTERED) { cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_relaxed); cuda::ptx::barrier_cluster_wait(); }/' /tmp/v1/$pg
# v2: no closing cluster barrier (measurement only)
sed -i 's/    if constexpr (Cfg::CLUSTERED) Smem::sync_cluster();/    \/\/ none/' /tmp/v2/$pg
# v3: v2 and a relaxed opening arrive
sed -i 's/    if constexpr (Cfg::CLUSTERED) Smem::sync_cluster();/    \/\/ none/' /tmp/v3/$pg
sed -i 's/barrier_cluster_arrive(cuda::ptx::sem_release)/barrier_cluster_arrive(cuda::ptx::sem_relaxed)/' /tmp/v3/$pl
grep -c "sem_relaxed" /tmp/v1/$pg /tmp/v3/$pl; grep -c "// none" /tmp/v2/$pg /tmp/v3/$pg
for v in v0 v1 v2 v3; do
  ( cd /tmp/$v && cmake --preset release > $o/cfg-$v.log 2>&1 && cmake --build --preset release --target symm-bench -j 4 > $o/build-$v.log 2>&1; echo "$v build rc=$?" ) &
done
wait
echo "builds $((SECONDS - start)) s"
m=gpu__time_duration.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,launch__grid_size
for k in 64 1000; do for v in v0 v1 v2 v3; do
  timeout 40 ncu --clock-control none -k regex:persistent_gemm --metrics $m --csv /tmp/$v/build/release/tools/symm-bench/symm-bench gemm --mnk 1000 1000 $k --dtype bf16 --config 64x128x64s8c2-pingpong --repeats 1 --n_warmup 1 --n_repeat 4 > $o/ncu-k$k-$v.csv 2>&1
  echo "ncu k=$k $v rc=$? $((SECONDS - start)) s"
done; done
timeout 40 ncu --clock-control none -k regex:persistent_gemm --metrics $m --csv /tmp/v0/build/release/tools/symm-bench/symm-bench gemm --mnk 1000 1000 64 --dtype bf16 --config 64x128x64s8-pingpong --repeats 1 --n_warmup 1 --n_repeat 4 > $o/ncu-k64-single.csv 2>&1
tar czf $OUT/r.tgz -C /tmp prof3
