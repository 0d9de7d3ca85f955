#!/usr/bin/env bash
# Device call: the comm blocks' bulk copies: the op's GPU tests, then the one-GPU proxy of
# every variant on short-K and Iris shards.
set -u
commit=${1:?commit}
o=/tmp/push; mkdir -p $o
export SYMM_GIT_COMMIT=$commit SYMM_REQUIRE_GPU=1 SYMM_GEMM_PLAN_CACHE=off
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $o/gpu.txt
start=$SECONDS
timeout 300 bash -c "cmake --preset release > $o/cfg.log 2>&1 && cmake --build --preset release -j 16 --target symm_gemm_all_scatter_test 10_gemm_all_scatter_wg_specialization > $o/build.log 2>&1"
rc=$?
echo "build rc=$rc $((SECONDS - start)) s"
if [ $rc -ne 0 ]; then grep -E "error|rror:" $o/build.log | head -20; tar czf $OUT/r.tgz -C /tmp push; exit 1; fi
rm -f $o/cfg.log; gzip $o/build.log
CUDA_VISIBLE_DEVICES=0 timeout 240 ctest --test-dir build/release -R "GemmAllScatter" -L gpu --output-on-failure \
  --timeout 200 --output-junit $o/ctest-ops.xml > $o/ops-tests.log 2>&1
echo "ops tests rc=$? $((SECONDS - start)) s: $(grep -E 'tests passed|tests failed' $o/ops-tests.log)"
grep -E "\(Failed\)|Timeout|\*\*\*" $o/ops-tests.log | head -20
OUT=$o/proxy PROXY_REPEAT=30 PROXY_VARIANTS=tma_push,wg_specialization,producer_consumer,bulk_synchronous \
  PROXY_SETTINGS="--b_layout kn" \
  PROXY_SIZES="${SIZES:-2048 4608 4096;2000 8000 3000;6120 6800 4104;4096 14336 8192;4096 4608 36864;8192 4608 18432;1000 2000 1000}" \
  timeout $((570 - (SECONDS - start))) scripts/gpu-proxy-figures.sh > $o/proxy-run.log 2>&1
echo "proxy rc=$? $((SECONDS - start)) s"
grep -vE "^\| ---" $o/proxy/proxy.md | cut -d'|' -f3,5,6,7,8,9 
tar czf $OUT/r.tgz -C /tmp push
