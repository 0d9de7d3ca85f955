#!/usr/bin/env bash
# Device call: push role in two warps (working tree) against 0497666's one-thread push
# (376eb7c worktree + patch), ncu of the scatter kernel, op GPU tests, copy-block rates.
set -u
commit=${1:?commit}
o=/tmp/walk2; mkdir -p $o
export SYMM_GEMM_PLAN_CACHE=off SYMM_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt
start=$SECONDS
git worktree add -f /tmp/base HEAD > /dev/null 2>&1
git -C /tmp/base apply $PWD/build/carry/base-0497666.patch; echo "base patch rc=$?"
(cd /tmp/base && cmake --preset release > $o/cfg-base.log 2>&1 && cmake --build --preset release -j 6 --target 10_gemm_all_scatter_wg_specialization > $o/build-base.log 2>&1; echo "base build rc=$? $((SECONDS - start)) s") &
timeout 400 bash -c "cmake --preset release > $o/cfg.log 2>&1 && cmake --build --preset release -j 12 --target symm_gemm_all_scatter_test 10_gemm_all_scatter_wg_specialization > $o/build.log 2>&1"
rc=$?; wait
echo "build rc=$rc $((SECONDS - start)) s"
if [ $rc -ne 0 ]; then grep -E "error" $o/build.log | head -20; tar czf $OUT/r.tgz -C /tmp walk2; exit 1; fi
new=build/release/examples/10_gemm_all_scatter_wg_specialization/10_gemm_all_scatter_wg_specialization
old=/tmp/base/$new
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
SYMM_GIT_COMMIT=$commit timeout 90 $NCU --clock-control none --kernel-name regex:scatter_kernel --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SourceCounters --section LaunchStats \
    -o $o/ncu-new -f $new -r 1 --loopback_peers 1 --no_baselines -b --n_warmup 4 --n_repeat 4 -m 2000 -n 4000 -k 3000 --variant producer_consumer --comm_sms 8 -o "" > $o/ncu-new.log 2>&1
echo "ncu rc=$? $((SECONDS - start)) s"
$NCU -i $o/ncu-new.ncu-rep --page details > $o/ncu-new-details.txt 2>&1
$NCU -i $o/ncu-new.ncu-rep --page source --csv --print-source sass > $o/ncu-new-sass.csv 2>&1
grep -E "Duration|Warp Cycles Per Issued" $o/ncu-new-details.txt
CUDA_VISIBLE_DEVICES=0 SYMM_GIT_COMMIT=$commit timeout 200 ctest --test-dir build/release -R "GemmAllScatter" -L gpu --output-on-failure --timeout 150 > $o/ops-tests.log 2>&1
echo "ops tests rc=$? $((SECONDS - start)) s: $(grep -E 'tests passed|tests failed' $o/ops-tests.log)"
grep -E "\(Failed\)|Timeout|\*\*\*" $o/ops-tests.log | head -20
for shape in "2000 4000 3000" "6120 3400 4104" "1000 1000 1000" "2048 4096 4096" "4096 7168 8192" "8192 2304 18432"; do
  read -r m n k <<<"$shape"
  for who in old new r16 r20 r24 r32; do
    case $who in old) e=$old; c=0497666; r=12e9;; new) e=$new; c=$commit; r=12e9;; *) e=$new; c=$commit; r=${who#r}e9;; esac
    vs=("wg_specialization,producer_consumer,bulk_synchronous")
    case $who in old|new) vs+=("wg_specialization --gemm_sms 128" "producer_consumer --comm_sms 8");; esac
    for v in "${vs[@]}"; do
      tag=$(echo "$v" | tr -d ' -' | sed 's/specialization/spec/g;s/consumer/cons/g;s/synchronous/sync/;s/,/+/g')
      SYMM_GIT_COMMIT=$c SYMM_EXP_COPY_RATE=$r timeout 60 $e -r 1 --loopback_peers 1 --no_baselines -v -b --n_repeat 30 -m $m -n $n -k $k \
        --variant $v -o $o/$who-$tag-$m-$n-$k.json >> $o/run.log 2>&1 || echo "FAILED $who $v $shape"
    done
  done
  [ $((SECONDS - start)) -gt 530 ] && break
done
echo "runs done $((SECONDS - start)) s"
python3 - $o <<'PY'
import glob, json, sys, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*-*-*-*-*.json")):
    name = os.path.basename(f)[:-5]
    who, tag, m, n, k = name.split("-")
    for r in json.load(open(f))["rows"]:
        if r["variant"] == "gemm_alone": continue
        sms = " ".join(w for w in (r.get("plan") or "").split() if w.startswith(("gemm_sms", "comm_sms")))
        rows[(f"{m}x{n}x{k}", r["variant"][:6] + ("" if "+" in tag else "*"))][who] = (r.get("ratio_vs_gemm_alone"), r.get("valid"), r.get("tile_sms", ""))
sets = ["old", "new", "r16", "r20", "r24", "r32"]
print("shape variant " + " ".join(sets))
for key, d in sorted(rows.items()):
    print(f"{key[0]:16s} {key[1]:8s} " + " ".join(f"{d[s][0]:.3f}{'' if d[s][1] is not False else '!'}" if s in d and d[s][0] else "  -  " for s in sets))
PY
tar czf $OUT/r.tgz -C /tmp walk2
