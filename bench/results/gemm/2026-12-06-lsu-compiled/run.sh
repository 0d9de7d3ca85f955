#!/usr/bin/env bash
# One device call: each line of probes.txt ("M N K dtype layout config", "-": the plan) timed
# against cuBLASLt by two carried symm-bench binaries in turn, HEAD's (TMA loads) and the
# experiment's (lsu-compiled.patch: cp.async loads), outputs checked by symm-bench first.
# A probe the experiment fails is run once more under compute-sanitizer.
#   scripts/device-call.sh lsuct 500 bash bench/results/gemm/2026-12-06-lsu-compiled/run.sh
# with carry: ["build/carry-tma", "build/carry-lsu"] (each: COMMIT, symm-bench.xz).
set -u
cd "$(dirname "$0")/../../../.." || exit 1
here=bench/results/gemm/2026-12-06-lsu-compiled
timeout 30 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu \
  --format=csv | tee "$OUT/gpu.txt"
for b in tma lsu; do
  mkdir -p /tmp/bin-$b && xz -dc build/carry-$b/symm-bench.xz >/tmp/bin-$b/symm-bench && chmod +x /tmp/bin-$b/symm-bench
  echo "$b: $(cat build/carry-$b/COMMIT)" | tee -a "$OUT/gpu.txt"
done
mkdir -p "$OUT/probes"
probe=0
while read -r m n k dtype layout config; do
  probe=$((probe + 1))
  forced=(--config "$config")
  [ "$config" = - ] && forced=()
  for b in tma lsu; do
    echo "== probe $probe $b: $m x $n x $k $dtype $layout $config" | tee -a "$OUT/probes.log"
    if ! SYMM_GIT_COMMIT=$(cat build/carry-$b/COMMIT) timeout 60 /tmp/bin-$b/symm-bench gemm --mnk "$m" "$n" "$k" --dtype "$dtype" --layout "$layout" \
      "${forced[@]}" --repeats 2 --output "$OUT/probes/probe-$probe-$b.json" </dev/null \
      >"$OUT/probes/probe-$probe-$b.log" 2>&1; then
      echo "FAILED probe $probe $b" | tee -a "$OUT/probes.log"
      tail -3 "$OUT/probes/probe-$probe-$b.log" | tee -a "$OUT/probes.log"
      cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
      if [ "$b" = lsu ] && [ ! -e "$OUT/sanitizer.log" ] && [ -x "$cs" ]; then
        timeout 120 "$cs" --print-limit 20 /tmp/bin-$b/symm-bench gemm --mnk "$m" "$n" "$k" \
          --dtype "$dtype" --layout "$layout" "${forced[@]}" --repeats 1 >"$OUT/sanitizer.log" 2>&1
      fi
    fi
    grep -E "^ +[0-9]" "$OUT/probes/probe-$probe-$b.log" | tee -a "$OUT/probes.log"
  done
done < <(grep -v '^ *\(#\|$\)' "$here/probes.txt")
(cd "$OUT" && tar czf probes.tgz probes && rm -rf probes)
