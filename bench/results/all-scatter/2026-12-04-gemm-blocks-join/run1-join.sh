#!/usr/bin/env bash
# Device call: GEMM blocks join the push role (working tree) against cdd9f62 (the landed
# HEAD, worktree): op GPU tests, A/B on the loopback proxy, traced runs.
set -u
commit=${1:?commit}
o=/tmp/join; mkdir -p $o
export SYMM_GEMM_PLAN_CACHE=off SYMM_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt
start=$SECONDS
git worktree add -f /tmp/base HEAD > /dev/null 2>&1
(cd /tmp/base && cmake --preset release > $o/cfg-base.log 2>&1 && cmake --build --preset release -j 6 --target 10_gemm_all_scatter_wg_specialization > $o/build-base.log 2>&1; echo "base build rc=$? $((SECONDS - start)) s") &
timeout 420 bash -c "cmake --preset release > $o/cfg.log 2>&1 && cmake --build --preset release -j 12 --target symm_gemm_all_scatter_test 10_gemm_all_scatter_wg_specialization > $o/build.log 2>&1"
rc=$?; wait
echo "build rc=$rc $((SECONDS - start)) s"
if [ $rc -ne 0 ]; then grep -E "error" $o/build.log | head -20; tar czf $OUT/r.tgz -C /tmp join; exit 1; fi
new=build/release/examples/10_gemm_all_scatter_wg_specialization/10_gemm_all_scatter_wg_specialization
old=/tmp/base/$new
CUDA_VISIBLE_DEVICES=0 SYMM_GIT_COMMIT=$commit timeout 200 ctest --test-dir build/release -R "GemmAllScatter" -L gpu --output-on-failure --timeout 150 > $o/ops-tests.log 2>&1
echo "ops tests rc=$? $((SECONDS - start)) s: $(grep -E 'tests passed|tests failed' $o/ops-tests.log)"
grep -E "\(Failed\)|Timeout|\*\*\*" $o/ops-tests.log | head -20
# Traces first (small), then the A/B.
for who in old new; do
  case $who in old) e=$old; c=cdd9f62;; new) e=$new; c=$commit;; esac
  for v in wg_specialization producer_consumer; do
    SYMM_GIT_COMMIT=$c timeout 60 $e -r 1 --loopback_peers 1 --no_baselines -v -b --n_repeat 5 -m 2048 -n 4096 -k 4096 \
      --variant $v -t -o $o/trace-$who-2048-4096-4096.json >> $o/trace.log 2>&1 || echo "FAILED trace $who $v"
  done
done
echo "traces done $((SECONDS - start)) s"
for shape in "2000 4000 3000" "2048 4096 4096" "6120 3400 4104" "1000 1000 1000" "4096 7168 8192" "8192 2304 18432"; do
  read -r m n k <<<"$shape"
  for who in old new; do
    case $who in old) e=$old; c=cdd9f62;; new) e=$new; c=$commit;; esac
    for v in "wg_specialization,producer_consumer,bulk_synchronous" "wg_specialization --gemm_sms 128" "producer_consumer --comm_sms 8" "wg_specialization --gemm_sms 124"; do
      tag=$(echo "$v" | tr -d ' -' | sed 's/specialization/spec/g;s/consumer/cons/g;s/synchronous/sync/;s/,/+/g')
      SYMM_GIT_COMMIT=$c timeout 60 $e -r 1 --loopback_peers 1 --no_baselines -v -b --n_repeat 20 -m $m -n $n -k $k \
        --variant $v -o $o/$who-$tag-$m-$n-$k.json >> $o/run.log 2>&1 || echo "FAILED $who $v $shape"
    done
  done
  [ $((SECONDS - start)) -gt 540 ] && break
done
echo "runs done $((SECONDS - start)) s"
python3 - $o <<'PY'
import glob, json, sys, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/*-*-*-*-*.json")):
    name = os.path.basename(f)[:-5]
    if name.startswith("trace"): continue
    who, tag, m, n, k = name.split("-")
    for r in json.load(open(f))["rows"]:
        if r["variant"] == "gemm_alone": continue
        key = r["variant"][:6] + ("" if "+" in tag else "*" + tag[-3:])
        rows[(f"{m}x{n}x{k}", key)][who] = (r.get("ratio_vs_gemm_alone"), r.get("valid"))
print("shape variant old new")
for key, d in sorted(rows.items()):
    print(f"{key[0]:16s} {key[1]:14s} " + " ".join(f"{d[s][0]:.3f}{'' if d[s][1] is not False else '!'}" if s in d and d[s][0] else "  -  " for s in ["old", "new"]))
PY
tar czf $OUT/r.tgz -C /tmp join
