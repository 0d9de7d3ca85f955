#!/usr/bin/env bash
# The GEMM + all-scatter figures for a machine with two GPUs, fitted to the device tool's
# limits (10 minutes a command, 8 files back from $OUT, the machine kept ~30 s after a call):
#   check:   what only two GPUs can show, in one call: build, the multigpu tier, the main
#            job, the multigpu mutations (scripts/mutation-check.sh --tier multigpu) with
#            the time left (the one-GPU gpu tier is left to scripts/gpu-check.sh on any H200)
#   figures: build the program (if needed), the headline sweep (bench/presets/headline.json)
#            on 2 ranks and the 1-rank loopback proxy, the copy blocks' rate over NVLink
#            (wg_specialization on a short-K shard with its default and with fixed comm
#            block counts: what the plan's copy-rate constant should be across GPUs), then
#            Iris's default sweep, each point appended as it finishes; stops starting work
#            at a deadline, then the report and the regression check of what it has.
# Work happens in out/gpu-x2 (git-ignored); on exit everything is tarred into one file in
# $OUT when $OUT is elsewhere (the device tool's folder). To resume after a call that ran
# out of time: unpack the returned tarball's *.jsonl into out/gpu-x2/ here and run again
# with `carry: ["out/gpu-x2"]`: finished points are skipped.
#
#   SYMM_GIT_COMMIT=<commit> scripts/gpu-x2-figures.sh check|figures
#   SYMM_X2_DEADLINE_S: seconds after which no new sweep starts and a running one is
#   stopped (default 520, leaving the report and the tar inside 600)
# Call `figures` as soon as `check` returns: a machine still warm keeps build/release.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-figures}
case "$mode" in check | figures) ;; *) echo "usage: $0 check|figures" >&2; exit 2 ;; esac
work=$PWD/out/gpu-x2
mkdir -p "$work"
deliver=${OUT:-$work}
mkdir -p "$deliver"
deliver=$(cd "$deliver" && pwd)
deadline=${SYMM_X2_DEADLINE_S:-520}
pack() {
  [ "$deliver" = "$work" ] && return
  tar czf "/tmp/gpu-x2-$mode.tgz" -C "$work" --exclude=./mutation/src --exclude=./mutation/build . &&
    mv "/tmp/gpu-x2-$mode.tgz" "$deliver/"
}
trap pack EXIT
export SYMM_RESULTS_DIR=$work SYMM_REQUIRE_GPU=1
export SYMM_GEMM_PLAN_CACHE=off  # measure the kernels built here, not plans recorded earlier
timeout 30 nvidia-smi --query-gpu=index,name,driver_version --format=csv | tee "$work/gpu.txt"
[ "$(timeout 30 nvidia-smi -L | wc -l)" -ge 2 ] || echo "note: fewer than 2 GPUs: ranks will share one (correctness only)"

# Steps (scripts/lib/step.sh) end 50 s after the deadline: the time the report and tar need.
STEP_LOGS=$work STEP_DEADLINE_S=$((deadline + 50))
failures=()
source scripts/lib/step.sh

if [ "$mode" = check ]; then
  { step configure 60 cmake --preset release && step build 300 cmake --build --preset release -j "$(nproc)"; } ||
    exit 1
  step multigpu 180 ctest --test-dir build/release -L multigpu --output-on-failure --timeout 150
  grep -E "tests passed|tests failed|\(Skipped\)|\(Failed\)|Timeout" "$work/multigpu.log" | tail -n 20
  step main-job 150 scripts/main-job.sh build/release
  tail -n 25 "$work/main-job.log"
  # Last, with what is left of the call: its scratch copy builds the two RMA tests anew.
  left=$((STEP_DEADLINE_S - SECONDS))
  if [ "$left" -ge 60 ]; then
    SYMM_MUTATION_DIR=$work/mutation step mutation "$left" scripts/mutation-check.sh --tier multigpu
    cat "$work/mutation.log"
  else
    echo "mutation     not started: ${left}s left of the call (run check again for it)"
  fi
  [ ${#failures[@]} -eq 0 ] && echo "gpu-x2 check: every step passed" ||
    { printf 'gpu-x2 check: FAILED: %s\n' "${failures[@]}"; exit 1; }
  exit 0
fi

program=build/release/examples/10_gemm_all_scatter_wg_specialization/10_gemm_all_scatter_wg_specialization
if [ ! -x "$program" ]; then
  { timeout 120 cmake --preset release &&
      timeout 300 cmake --build --preset release -j "$(nproc)" --target "$(basename "$program")"; } >"$work/build.log" 2>&1 ||
    { tail -n 30 "$work/build.log"; exit 1; }
fi
rc=0
sweep() {  # sweep PRESET: bench/presets/PRESET.json, appended to $work/sweep-PRESET.jsonl
  local preset=$1 left=$((deadline - SECONDS))
  if [ "$left" -lt 30 ]; then echo "== sweep $preset not started: deadline (run again to resume)"; return 1; fi
  echo "== sweep $preset (at most ${left}s)"
  timeout -s TERM -k 10 "$left" "$program" --preset "bench/presets/$preset.json" -o "$work/sweep-$preset.jsonl" 2>&1 |
    tee -a "$work/sweep-$preset.log" | grep -E "^sweep:|symm: sweep" | tail -n 3
  [ "${PIPESTATUS[0]}" -eq 0 ]
}
# The copy blocks' rate across GPUs (docs/gemm-all-scatter.md, "Copy blocks that keep pace"
# and "GEMM blocks join the push"): one short-K problem, 2 ranks, the plan's comm blocks
# (sized to keep pace) and fixed counts of 1 to 36 (few do best into loopback buffers).
copy_blocks() {
  local sms
  echo "== copy blocks over NVLink"
  for sms in 0 131 130 128 124 120 112 104 96; do
    [ $((deadline - SECONDS)) -lt 60 ] && { echo "== copy blocks: deadline"; return 1; }
    timeout -s TERM -k 10 60 "$program" -r 2 -m 2000 -n 8000 -k 3000 --variant wg_specialization,tma_push \
      --no_baselines -v -b --n_repeat 30 --gemm_sms "$sms" -o "$work/copy-blocks-gemm_sms-$sms.json" \
      >>"$work/copy-blocks.log" 2>&1 || return 1
  done
  grep -hE "^ +(wg_specialization|tma_push|gemm_alone) " "$work/copy-blocks.log" | tail -n 27
}
sweep headline || rc=1
copy_blocks || rc=1
sweep default || rc=1
python=$(scripts/report-python.sh) || { echo "no python3 with matplotlib: no report"; python=python3; }
"$python" tools/report/symm-report "$work"/sweep-*.jsonl --out "$work/report" || rc=1
"$python" tools/report/perf-check check "$work"/sweep-*.jsonl | tail -n 5 || rc=1  # a regression fails the call
exit $rc
