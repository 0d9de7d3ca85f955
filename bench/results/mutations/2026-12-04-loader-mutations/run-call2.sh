#!/usr/bin/env bash
# Device call: the GEMM's GPU tests at a937896 (the mainloop's midway callable), then the
# half-published mutation against the new LateHalf tests.
set -u
o=/tmp/mut; mkdir -p $o
export SYMM_REQUIRE_GPU=1 CUDA_VISIBLE_DEVICES=0 SYMM_GEMM_PLAN_CACHE=off
start=$SECONDS
cmake --preset release > $o/gemm-build.log 2>&1 && cmake --build --preset release -j 16 --target symm_gemm_gpu_test >> $o/gemm-build.log 2>&1
echo "gemm test build rc=$? $((SECONDS - start)) s"
SYMM_GIT_COMMIT=a937896 timeout 240 build/release/tests/gpu/gemm/symm_gemm_gpu_test > $o/gemm-tests.log 2>&1
echo "gemm tests rc=$? $((SECONDS - start)) s: $(grep -E '^\[  (PASSED|FAILED)|tests? ran' $o/gemm-tests.log | head -3)"
grep -E "^\[  FAILED" $o/gemm-tests.log | head
timeout $((570 - (SECONDS - start))) scripts/mutation-check.sh --tier gpu tests/mutations/gpu-ops-polled-tile-half-published.patch > $o/mutation-check.txt 2>&1
echo "mutation-check rc=$? $((SECONDS - start)) s"
tail -5 $o/mutation-check.txt
for f in /tmp/symm-mutation/logs/*tests*.log; do [ -f "$f" ] && gzip -c "$f" > $o/$(basename $f).gz; done
gzip -f $o/gemm-tests.log
tar czf $OUT/r.tgz -C /tmp mut
