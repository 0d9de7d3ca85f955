#!/usr/bin/env bash
# Device call: op GPU tests at HEAD, push-role experiments (loads ahead, batched acquire),
# ncu of the scatter kernel.
set -u
commit=${1:?commit}
o=/tmp/p2; mkdir -p $o
export SYMM_GEMM_PLAN_CACHE=off SYMM_REQUIRE_GPU=1 SYMM_GIT_COMMIT=$commit
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt
start=$SECONDS
timeout 300 bash -c "cmake --preset release > $o/cfg.log 2>&1 && cmake --build --preset release -j 16 --target symm_gemm_all_scatter_test 10_gemm_all_scatter_wg_specialization > $o/build.log 2>&1"
rc=$?
echo "build rc=$rc $((SECONDS - start)) s"
if [ $rc -ne 0 ]; then grep -E "error" $o/build.log | head -20; tar czf $OUT/r.tgz -C /tmp p2; exit 1; fi
e=build/release/examples/10_gemm_all_scatter_wg_specialization/10_gemm_all_scatter_wg_specialization
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for s in a0b1 a1b4; do
  a=${s:1:1}; b=${s:3:1}
  SYMM_EXP_AHEAD=$a SYMM_EXP_FENCE_BATCH=$b timeout 90 $NCU --clock-control none --kernel-name regex:scatter_kernel --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SourceCounters --section LaunchStats --section Occupancy \
    -o $o/ncu-$s -f $e -r 1 --loopback_peers 1 --no_baselines -b --n_warmup 4 --n_repeat 4 -m 2000 -n 4000 -k 3000 --variant producer_consumer --comm_sms 8 -o "" > $o/ncu-$s.log 2>&1
  echo "ncu $s rc=$? $((SECONDS - start)) s"
  $NCU -i $o/ncu-$s.ncu-rep --page details > $o/ncu-$s-details.txt 2>&1
  $NCU -i $o/ncu-$s.ncu-rep --page source --csv --print-source sass > $o/ncu-$s-sass.csv 2>&1
done
CUDA_VISIBLE_DEVICES=0 timeout 200 ctest --test-dir build/release -R "GemmAllScatter" -L gpu --output-on-failure --timeout 150 > $o/ops-tests.log 2>&1
echo "ops tests rc=$? $((SECONDS - start)) s: $(grep -E 'tests passed|tests failed' $o/ops-tests.log)"
grep -E "\(Failed\)|Timeout|\*\*\*" $o/ops-tests.log | head -20
for shape in "2000 4000 3000" "2048 4096 4096" "6120 3400 4104"; do
  read -r m n k <<<"$shape"
  for s in a0b1 a1b1 a2b1 a0b4 a1b4; do
    a=${s:1:1}; b=${s:3:1}
    for v in "wg_specialization,producer_consumer" "wg_specialization --gemm_sms 128" "producer_consumer --comm_sms 8"; do
      tag=$(echo "$v" | tr -d ' -' | sed 's/specialization/spec/g;s/consumer/cons/g;s/,/+/')
      SYMM_EXP_AHEAD=$a SYMM_EXP_FENCE_BATCH=$b timeout 60 $e -r 1 --loopback_peers 1 --no_baselines -v -b --n_repeat 30 -m $m -n $n -k $k \
        --variant $v -o $o/$s-$tag-$m-$n-$k.json >> $o/run.log 2>&1 || echo "FAILED $s $v $shape"
    done
  done
  [ $((SECONDS - start)) -gt 540 ] && break
done
echo "runs done $((SECONDS - start)) s"
python3 - $o <<'PY'
import glob, json, sys, os, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/a*.json")):
    name = os.path.basename(f)[:-5]
    s, tag, m, n, k = name.split("-")
    for r in json.load(open(f))["rows"]:
        if r["variant"] == "gemm_alone": continue
        rows[(f"{m}x{n}x{k}", r["variant"][:6] + ("" if "+" in tag else "*"))][s] = (r.get("ratio_vs_gemm_alone"), r.get("valid"))
sets = ["a0b1", "a1b1", "a2b1", "a0b4", "a1b4"]
print("shape variant " + " ".join(sets))
for key, d in sorted(rows.items()):
    print(f"{key[0]:16s} {key[1]:8s} " + " ".join(f"{d[s][0]:.3f}{'' if d[s][1] else '!'}" if s in d and d[s][0] else "  -  " for s in sets))
PY
tar czf $OUT/r.tgz -C /tmp p2
