#!/usr/bin/env bash
# The main job (`make run`): GEMM + all-scatter, the operation symm exists for, on every
# visible GPU: every variant (tma_push, wg_specialization, fused_sequential,
# producer_consumer, bulk_synchronous), validated against cuBLAS, timed beside our GEMM
# alone on the local shard and the baselines (cuBLASLt + NCCL all-gather, cuBLASLt +
# copy-engine scatter, the chunked copy-engine pipeline) in the same run; then our GEMM
# against cuBLASLt (symm-bench gemm, quick preset); then the short sweep
# (bench/presets/short.json) and the roofline report (tools/report/symm-report). Without a
# GPU it says so at once (tools/gpu-count/symm-gpus) and exits non-zero.
#
#   scripts/main-job.sh BUILD_DIR [extra arguments of the GEMM + all-scatter program]
# Results (JSON) go to $SYMM_RESULTS_DIR (default out/).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/main-job.sh BUILD_DIR [program arguments]}
shift
out=${SYMM_RESULTS_DIR:-out}
mkdir -p "$out"
if [ -z "${SYMM_GIT_COMMIT:-}" ] && git rev-parse HEAD >/dev/null 2>&1; then
  SYMM_GIT_COMMIT=$(git rev-parse HEAD)
  git diff --quiet HEAD 2>/dev/null || SYMM_GIT_COMMIT+="-dirty"
  export SYMM_GIT_COMMIT
fi

# GPUs counted as symm counts them (honouring CUDA_VISIBLE_DEVICES); none: said at once.
gpus=$("$build/tools/gpu-count/symm-gpus")
# All-scatter needs two ranks: on a one-GPU machine both share it (a correctness run; its
# timings say nothing about NVLink, and the program labels them so).
args=("$@")
if [ ${#args[@]} -eq 0 ] && [ "$gpus" = 1 ]; then
  echo "symm: one GPU visible: GEMM + all-scatter runs 2 ranks on it (correctness, not speed)"
  args=(-r 2)
fi
"$build/examples/10_gemm_all_scatter_wg_specialization/10_gemm_all_scatter_wg_specialization" \
  --variant all --validate --benchmark -o "$out/gemm_all_scatter.json" "${args[@]}"
"$build/tools/symm-bench/symm-bench" gemm --preset bench/gemm/quick.json -o "$out/gemm.json"
# The short sweep (1 rank pushing to a loopback copy of C, and 2 ranks), measured afresh,
# and the roofline report of it and the GEMM figures.
rm -f "$out/sweep-short.jsonl"
"$build/examples/10_gemm_all_scatter_wg_specialization/10_gemm_all_scatter_wg_specialization" \
  --preset bench/presets/short.json -o "$out/sweep-short.jsonl"
# Under the python3 that has matplotlib (PATH's may not: scripts/report-python.sh).
python=$(scripts/report-python.sh) ||
  { echo "symm: no python3 imports matplotlib for the report's plots: run scripts/install-deps.sh" >&2; exit 1; }
"$python" tools/report/symm-report "$out/sweep-short.jsonl" "$out/gemm.json" --out "$out/report"
echo "symm: results in $out/"
