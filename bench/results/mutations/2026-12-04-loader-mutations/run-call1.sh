#!/usr/bin/env bash
# Device call: the two un-run push-loader GPU mutations, each on a clean build first.
set -u
o=/tmp/mut; mkdir -p $o
export SYMM_REQUIRE_GPU=1 CUDA_VISIBLE_DEVICES=0 SYMM_GEMM_PLAN_CACHE=off
start=$SECONDS
timeout 540 scripts/mutation-check.sh --tier gpu \
  tests/mutations/gpu-ops-stale-tile-epoch.patch tests/mutations/gpu-ops-polled-tile-half-published.patch > $o/mutation-check.txt 2>&1
echo "mutation-check rc=$? $((SECONDS - start)) s"
cat $o/mutation-check.txt | tail -15
for f in /tmp/symm-mutation/logs/*tests*.log; do [ -f "$f" ] && gzip -c "$f" > $o/$(basename $f).gz; done
tar czf $OUT/r.tgz -C /tmp mut
