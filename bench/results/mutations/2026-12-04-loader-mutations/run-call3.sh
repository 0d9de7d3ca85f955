#!/usr/bin/env bash
# Device call: the half-published mutation against LateHalf at 89083f3, then the proxy A/B
# again (landed 0c2b360 against the working tree) with 50 repeats on six shapes.
set -u
o=/tmp/mut; mkdir -p $o
export SYMM_REQUIRE_GPU=1 CUDA_VISIBLE_DEVICES=0 SYMM_GEMM_PLAN_CACHE=off
start=$SECONDS
timeout 300 scripts/mutation-check.sh --tier gpu tests/mutations/gpu-ops-polled-tile-half-published.patch > $o/mutation-check.txt 2>&1
echo "mutation-check rc=$? $((SECONDS - start)) s"
tail -3 $o/mutation-check.txt
for f in /tmp/symm-mutation/logs/*tests*.log; do [ -f "$f" ] && gzip -c "$f" > $o/$(basename $f).gz; done
OUT=$o/ab AB_TESTS=0 AB_REPEAT=50 timeout $((575 - (SECONDS - start))) scripts/gpu-ab.sh 0c2b360 89083f3 > $o/ab-run.log 2>&1
echo "ab rc=$? $((SECONDS - start)) s"
tail -22 $o/ab-run.log
tar czf $OUT/r.tgz -C /tmp mut
