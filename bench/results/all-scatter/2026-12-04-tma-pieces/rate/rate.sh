#!/usr/bin/env bash
# Device call: the copy-block model's rate per block (SYMM_EXP_COPY_RATE) with the TMA push,
# wg_specialization and producer_consumer on short-K shards; microbenchmark of unaligned rows.
set -u
commit=${1:?commit}
o=/tmp/rate; mkdir -p $o
export SYMM_GIT_COMMIT=$commit SYMM_REQUIRE_GPU=1 SYMM_GEMM_PLAN_CACHE=off
start=$SECONDS
(cd build/carry && nvcc -std=c++20 -arch=sm_90a -O3 -o /tmp/tmabench tmabench.cu -lcuda && for n in 4096 4000 3400; do echo "n=$n"; /tmp/tmabench $n; done > $o/tmabench-ld.txt 2>&1) &
timeout 300 bash -c "cmake --preset release > $o/cfg.log 2>&1 && cmake --build --preset release -j 16 --target 10_gemm_all_scatter_wg_specialization > $o/build.log 2>&1"
echo "build rc=$? $((SECONDS - start)) s"; wait
cat $o/tmabench-ld.txt
e=build/release/examples/10_gemm_all_scatter_wg_specialization/10_gemm_all_scatter_wg_specialization
for s in "2000 4000 3000" "6120 3400 4104" "1000 1000 1000" "2048 2304 4096" "4096 7168 8192" "2048 8192 4096"; do
  read -r m n k <<<"$s"
  for rate in 12e9 18e9 24e9 32e9; do
    export SYMM_EXP_COPY_RATE=$rate
    for v in wg_specialization producer_consumer; do
      timeout 60 $e -r 1 --loopback_peers 1 --no_baselines -v -b --n_repeat 30 -m $m -n $n -k $k \
        --variant $v -o $o/$v-$rate-$m-$n-$k.json >> $o/run.log 2>&1 || echo "FAILED $v $rate $s"
    done
  done
  [ $((SECONDS - start)) -gt 400 ] && break
done
echo "runs done $((SECONDS - start)) s"
python3 - $o <<'PY'
import glob, json, sys, os
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    for r in json.load(open(f))["rows"]:
        if r["variant"] == "gemm_alone": continue
        plan = r.get("plan") or ""
        sms = " ".join(w for w in plan.split() if w.startswith(("gemm_sms", "comm_sms")))
        print(f"{os.path.basename(f):50s} {sms:28s} {r['total_ms']:.4f} {r.get('ratio_vs_gemm_alone'):.3f} valid={r.get('valid')}")
PY
tar czf $OUT/r.tgz -C /tmp rate
