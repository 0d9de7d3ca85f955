#!/usr/bin/env bash
# Device call: the claimed push role's GPU mutations, each on a clean build first.
set -u
o=/tmp/mut; mkdir -p $o
export SYMM_REQUIRE_GPU=1 CUDA_VISIBLE_DEVICES=0 SYMM_GEMM_PLAN_CACHE=off
start=$SECONDS
timeout 380 scripts/mutation-check.sh --tier gpu \
  tests/mutations/gpu-ops-gemm-blocks-never-join.patch tests/mutations/gpu-ops-tile-claims-never-reset.patch > $o/mutation-check.txt 2>&1
echo "mutation-check rc=$? $((SECONDS - start)) s"
cat $o/mutation-check.txt | tail -15
for f in /tmp/symm-mutation/logs/*tests*.log; do [ -f "$f" ] && gzip -c "$f" > $o/$(basename $f).gz; done
tar czf $OUT/r.tgz -C /tmp mut
