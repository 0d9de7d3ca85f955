#!/usr/bin/env bash
# Device call: A/B of HEAD (build/carry/head.tar) against the working tree on small GEMMs.
set -u
o=/tmp/prof; mkdir -p $o
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 SYMM_GEMM_PLAN_CACHE=off
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $o/gpu.txt
start=$SECONDS
( cmake --preset release > $o/cfg-new.log 2>&1 && cmake --build --preset release --target symm-bench -j 10 > $o/build-new.log 2>&1; echo "new build rc=$?" ) &
( mkdir -p /tmp/old && tar xzf build/carry/head.tar.gz -C /tmp/old && cd /tmp/old && cmake --preset release > $o/cfg-old.log 2>&1 && cmake --build --preset release --target symm-bench -j 8 > $o/build-old.log 2>&1; echo "old build rc=$?" ) &
wait
echo "builds took $((SECONDS - start)) s"
new=build/release/tools/symm-bench/symm-bench; old=/tmp/old/build/release/tools/symm-bench/symm-bench
for r in 1 2; do for v in old new; do
  timeout 90 ${!v} gemm --preset build/carry/small.json --dtype bf16 -o $o/small-$v-$r.json > $o/small-$v-$r.log 2>&1
  echo "small $v $r rc=$? $(grep geomean $o/small-$v-$r.log | head -1)"
done; done
for cfg in 64x128x64s8c2-pingpong 64x128x64s8-pingpong 128x128x64s6 64x256x64s4-pingpong 128x144x64s5 128x128x64s6-pingpong; do
  timeout 40 $new gemm --mnk 1000 1000 1000 --dtype bf16 --config $cfg --repeats 5 > $o/force-$cfg.log 2>&1
  echo "force $cfg: $(grep -E '^ +1000' $o/force-$cfg.log)"
done
for s in 2 4; do
  SYMM_GEMM_SPLITS=$s timeout 40 $new gemm --mnk 1000 1000 1000 --dtype bf16 --config 128x128x64s6 --repeats 5 > $o/force-128x128-split$s.log 2>&1
  echo "force 128x128 split $s: $(grep -E '^ +1000' $o/force-128x128-split$s.log)"
done
m=gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size
for v in old new; do
  timeout 60 ncu --clock-control none --metrics $m --csv ${!v} gemm --mnk 1000 1000 1000 --dtype bf16 --no-tune --repeats 1 --n_warmup 1 --n_repeat 3 > $o/ncu-1000-$v.csv 2>&1
  echo "ncu $v rc=$?"
done
echo "total $((SECONDS - start)) s"
tar czf $OUT/r.tgz -C /tmp prof
#!/usr/bin/env bash
# Device call: where our 64x128 kernels lose time on small problems (ncu kernel durations).
set -u
o=/tmp/prof2; mkdir -p $o
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 SYMM_GEMM_PLAN_CACHE=off
start=$SECONDS
cmake --preset release > $o/cfg.log 2>&1 && cmake --build --preset release --target symm-bench -j 16 > $o/build.log 2>&1
echo "build rc=$? $((SECONDS - start)) s"
b=build/release/tools/symm-bench/symm-bench
m=gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,launch__grid_size
for k in 64 1000 4000; do for cfg in 64x128x64s8c2-pingpong 64x128x64s8-pingpong; do
  timeout 60 ncu --clock-control none --metrics $m --csv $b gemm --mnk 1000 1000 $k --dtype bf16 --config $cfg --repeats 1 --n_warmup 1 --n_repeat 2 > $o/ncu-k$k-$cfg.csv 2>&1
  echo "ncu k=$k $cfg rc=$? $((SECONDS - start)) s"
done; done
timeout 90 ncu --clock-control none -k regex:persistent_gemm -s 2 -c 1 --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy $b gemm --mnk 1000 1000 1000 --dtype bf16 --config 64x128x64s8c2-pingpong --repeats 1 --n_warmup 1 --n_repeat 2 > $o/ncu-sections.txt 2>&1
echo "sections rc=$? $((SECONDS - start)) s"
timeout 90 ncu --clock-control none -k regex:nvjet_sm90_tst_64x128 -s 1 -c 1 --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy $b gemm --mnk 1000 1000 1000 --dtype bf16 --config 64x128x64s8c2-pingpong --repeats 1 --n_warmup 1 --n_repeat 2 > $o/ncu-sections-cublas.txt 2>&1
echo "sections cublas rc=$? $((SECONDS - start)) s"
tar czf $OUT/r.tgz -C /tmp prof2
