#!/usr/bin/env bash
# Device call: A/B of a831a35 (ring cursor, tiles published during the next tile) against
# the landed 0c2b360, with the op's GPU tests (the new LateHalf tests among them).
set -u
o=/tmp/ab; mkdir -p $o
start=$SECONDS
OUT=$o AB_SIZES="2000 8000 3000;2048 8192 4096;6120 6800 4104;4096 4608 36864" AB_REPEAT=20 \
  timeout 555 scripts/gpu-ab.sh 0c2b360 a831a35 > $o/ab-run.log 2>&1
echo "ab rc=$? $((SECONDS - start)) s"
tail -45 $o/ab-run.log
grep -E "LateHalf" $o/ops-tests.log | head -4
tar czf $OUT/ab.tgz -C /tmp ab
