#!/usr/bin/env bash
# The one-GPU proxy of GEMM + all-scatter's headline figures: each of Iris's sizes as one
# rank's shard of a two-rank run (N halved), pushed to a loopback copy of C on the same GPU
# (HBM, not NVLink: what the push path costs the SMs, not what NVLink costs), the variants
# asked for beside gemm_alone in one run (interleaved rounds, outputs validated first).
#
#   SYMM_GIT_COMMIT=<commit> scripts/gpu-proxy-figures.sh
#
# PROXY_PROGRAM  the program (default: build/release's 10_gemm_all_scatter_wg_specialization)
# PROXY_BUILDS   instead, several builds to compare, each "label:commit:program", ' '
#                between them: every (shape, setting) runs each build in turn, so the
#                clock's drift under load falls on all alike (scripts/gpu-ab.sh uses it)
# PROXY_DTYPES   default "bf16"
# PROXY_VARIANTS default "tma_push,bulk_synchronous"
# PROXY_SETTINGS extra program flags per setting, ';' between settings (default: the plan's
#                choice, then "--split_tail 0"); each shape runs every setting back to back
# PROXY_REPEAT   timed iterations per contender (default 50)
# PROXY_SIZES    global "M N K" triples, ';' between them (default: Iris's five and 16384^3)
# PROXY_ROUNDS   launches of each (shape, setting, build), default 1; with several builds
#                the order of the builds is reversed every other round (A B B A ...), so
#                that a drift in time falls on each alike
# Results: proxy-<dtype>-<M>x<N>x<K>-s<setting>[-<label>][-r<round>].json, proxy.log and a
# table (proxy.md) in $OUT (default out/proxy).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out/proxy}
mkdir -p "$out"
read -r -a builds <<<"${PROXY_BUILDS:-:${SYMM_GIT_COMMIT:-}:${PROXY_PROGRAM:-build/release/examples/10_gemm_all_scatter_wg_specialization/10_gemm_all_scatter_wg_specialization}}"
for build in "${builds[@]}"; do
  program=${build#*:*:}
  [ -x "$program" ] || { echo "gpu-proxy-figures: no program at $program: build it first" >&2; exit 2; }
done
rounds=${PROXY_ROUNDS:-1}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "gpu-proxy-figures: PROXY_ROUNDS must be a positive count, not '$rounds'" >&2; exit 2; }
IFS=';' read -r -a settings <<<"${PROXY_SETTINGS:-;--split_tail 0}"
[ ${#settings[@]} -gt 0 ] || settings=("")
# Global M N K; the shard is N / 2.
IFS=';' read -r -a sizes <<<"${PROXY_SIZES:-4096 4608 36864;8192 4608 36864;16384 4608 36864;8192 9216 36864;8192 4608 18432;16384 16384 16384}"
rc=0
# One launch for build $1 ("label:commit:program"), setting $2, round $3, on $dtype $m $n $k.
run_one() {
  local label=${1%%:*} rest=${1#*:} i=$2 round=$3
  local commit=${rest%%:*} program=${rest#*:} suffix=${label:+-$label} what=${settings[$2]:-the plan as made}
  ((rounds > 1)) && suffix+=-r$round && what+=", round $round"
  echo "== $dtype $m x $n x $k (shard N $((n / 2))) setting $i: $what${label:+, build $label}" | tee -a "$out/proxy.log"
  # shellcheck disable=SC2086  # a setting is a list of flags
  SYMM_GIT_COMMIT=$commit timeout -k 10 240 "$program" -r 1 --loopback_peers 1 -m "$m" -n $((n / 2)) -k "$k" \
    --datatype "$dtype" --variant "${PROXY_VARIANTS:-tma_push,bulk_synchronous}" --no_baselines -v -b \
    --n_repeat "${PROXY_REPEAT:-50}" ${settings[$i]} -o "$out/proxy-$dtype-${m}x${n}x${k}-s$i$suffix.json" \
    >>"$out/proxy.log" 2>&1 || { echo "   FAILED (exit $?): see proxy.log"; rc=1; }
}
for dtype in ${PROXY_DTYPES:-bf16}; do
  for size in "${sizes[@]}"; do
    read -r m n k <<<"$size"
    for i in "${!settings[@]}"; do
      for ((round = 0; round < rounds; ++round)); do
        if ((round % 2)); then
          for ((j = ${#builds[@]} - 1; j >= 0; --j)); do run_one "${builds[j]}" "$i" "$round"; done
        else
          for build in "${builds[@]}"; do run_one "$build" "$i" "$round"; done
        fi
      done
    done
  done
done
# One row per contender: shape, setting, build, plan, time, ratio to gemm_alone of the same run.
tools/report/proxy-table runs "$out" "${settings[@]}" | tee "$out/proxy.md" || rc=1
exit $rc
