#!/usr/bin/env bash
# Device call: push role with large TMA pieces against the vector copy (HEAD built in a
# worktree), op GPU tests, microbenchmarks of one block's copy rate.
set -u
commit=${1:?commit}
o=/tmp/tma; mkdir -p $o
export SYMM_GEMM_PLAN_CACHE=off SYMM_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt
start=$SECONDS
git worktree add -f /tmp/base HEAD > /dev/null 2>&1
base_rev=$(git -C /tmp/base rev-parse --short HEAD)
(cd /tmp/base && cmake --preset release > $o/cfg-base.log 2>&1 && cmake --build --preset release -j 6 --target 10_gemm_all_scatter_wg_specialization > $o/build-base.log 2>&1; echo "base build rc=$? ($base_rev)") &
timeout 400 bash -c "cmake --preset release > $o/cfg.log 2>&1 && cmake --build --preset release -j 12 --target symm_gemm_all_scatter_test 10_gemm_all_scatter_wg_specialization > $o/build.log 2>&1"
rc=$?; wait
echo "build rc=$rc $((SECONDS - start)) s"
if [ $rc -ne 0 ]; then grep -E "error" $o/build.log | head -20; tar czf $OUT/r.tgz -C /tmp tma; exit 1; fi
(cd build/carry && nvcc -std=c++20 -arch=sm_90a -O3 -o /tmp/copybench copybench.cu -lcuda && nvcc -std=c++20 -arch=sm_90a -O3 -o /tmp/tmabench tmabench.cu -lcuda && /tmp/copybench > $o/copybench.txt && /tmp/tmabench > $o/tmabench.txt) 2>&1 | tail -3
CUDA_VISIBLE_DEVICES=0 timeout 200 ctest --test-dir build/release -R "GemmAllScatter" -L gpu --output-on-failure \
  --timeout 150 > $o/ops-tests.log 2>&1
echo "ops tests rc=$? $((SECONDS - start)) s: $(grep -E 'tests passed|tests failed' $o/ops-tests.log)"
grep -E "\(Failed\)|Timeout|\*\*\*" $o/ops-tests.log | head -20
new=build/release/examples/10_gemm_all_scatter_wg_specialization/10_gemm_all_scatter_wg_specialization
old=/tmp/base/$new
for s in "2000 4000 3000" "6120 3400 4104" "1000 1000 1000" "4096 7168 8192" "8192 2304 18432"; do
  read -r m n k <<<"$s"
  for who in new old; do
    [ $who = new ] && { e=$new; export SYMM_GIT_COMMIT=$commit; } || { e=$old; export SYMM_GIT_COMMIT=$base_rev; }
    for v in "wg_specialization" "wg_specialization --gemm_sms 128" "producer_consumer" "producer_consumer --comm_sms 8" "bulk_synchronous"; do
      tag=$(echo "$v" | tr -d ' -' | sed 's/specialization/spec/;s/consumer/cons/')
      timeout 60 $e -r 1 --loopback_peers 1 --no_baselines -v -b --n_repeat 30 -m $m -n $n -k $k \
        --variant $v -o $o/$who-$tag-$m-$n-$k.json >> $o/run.log 2>&1 || echo "FAILED $who $v $s"
    done
  done
  [ $((SECONDS - start)) -gt 500 ] && break
done
SYMM_GIT_COMMIT=$commit timeout 60 $new -r 1 --loopback_peers 1 --no_baselines -b -m 2000 -n 4000 -k 3000 --variant wg_specialization -t -o $o/trace-new.json >> $o/run.log 2>&1
echo "runs done $((SECONDS - start)) s"
python3 - $o <<'PY'
import glob, json, sys, os
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/*-*-*.json")):
    name = os.path.basename(f)
    if name.startswith("trace"): continue
    who, tag, shape = name[:3], name[4:].split("-")[0], "x".join(name[:-5].split("-")[2:])
    for r in json.load(open(f))["rows"]:
        if r["variant"] == "gemm_alone": continue
        plan = r.get("plan") or ""
        sms = " ".join(w for w in plan.split() if w.startswith(("gemm_sms", "comm_sms")))
        rows.setdefault((shape, tag), {})[who] = (r["total_ms"], r.get("ratio_vs_gemm_alone"), r.get("valid"), sms)
for (shape, tag), d in sorted(rows.items()):
    n, o = d.get("new"), d.get("old")
    fmt = lambda x: f"{x[0]:.4f} {x[1]:.3f} v={x[2]}" if x else "-"
    print(f"{shape:18s} {tag:24s} new {fmt(n):24s} old {fmt(o):24s} {n[3] if n else ''}")
PY
tar czf $OUT/r.tgz -C /tmp tma
