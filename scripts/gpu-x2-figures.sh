#!/usr/bin/env bash
# The GEMM + all-scatter figures for a machine with two GPUs, in the fewest device calls:
#   check:   scripts/gpu-check.sh (build, gpu tier, multigpu tier on both GPUs, main job)
#   figures: build (if needed), the headline sweep (bench/presets/headline.json) on 2 ranks
#            and the 1-rank loopback proxy, then Iris's default sweep, each point appended
#            as it finishes (a second call resumes), the report and the regression check.
# Logs, results and the report go to $OUT (default out/gpu-x2), tarred as figures.tgz.
#
#   SYMM_GIT_COMMIT=<commit> scripts/gpu-x2-figures.sh check|figures
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-figures}
export OUT=${OUT:-out/gpu-x2}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export SYMM_RESULTS_DIR=$OUT SYMM_REQUIRE_GPU=1
export SYMM_GEMM_PLAN_CACHE=off  # measure the kernels built here, not plans recorded earlier
nvidia-smi --query-gpu=index,name,driver_version --format=csv | tee "$OUT/gpu.txt"
[ "$(nvidia-smi -L | wc -l)" -ge 2 ] || echo "note: fewer than 2 GPUs: ranks will share one (correctness only)"

case "$mode" in
  check)
    scripts/gpu-check.sh
    exit $? ;;
  figures) ;;
  *) echo "usage: $0 check|figures" >&2; exit 2 ;;
esac

program=build/release/examples/10_gemm_all_scatter_wg_specialization/10_gemm_all_scatter_wg_specialization
if [ ! -x "$program" ]; then
  { cmake --preset release && cmake --build --preset release -j "$(nproc)"; } >"$OUT/build.log" 2>&1 ||
    { tail -n 30 "$OUT/build.log"; exit 1; }
fi
rc=0
for preset in headline default; do
  echo "== sweep $preset"
  timeout 420 "$program" --preset "bench/presets/$preset.json" -o "$OUT/sweep-$preset.jsonl" 2>&1 |
    tee "$OUT/sweep-$preset.log" | grep -E "^sweep:|symm: sweep" | tail -n 3
  [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
done
python=$(scripts/report-python.sh) || { echo "no python3 with matplotlib: no report"; python=python3; }
"$python" tools/report/symm-report "$OUT"/sweep-*.jsonl --out "$OUT/report" || rc=1
"$python" tools/report/perf-check check "$OUT"/sweep-*.jsonl | tail -n 5
(cd "$OUT" && tar czf figures.tgz --exclude=figures.tgz ./*.jsonl ./*.log ./report ./gpu.txt)
exit $rc
