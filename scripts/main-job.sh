#!/usr/bin/env bash
# The main job (`make run`): until the fused GEMM + all-scatter lands, the most complete
# symm programs, on every visible GPU:
#   1. examples/03_all_store: every rank stores into every peer's symmetric heap at once,
#      validated bit-exactly, timed against the copy engines in the same run;
#   2. symm-bench gemm: our Hopper GEMM against cuBLASLt in the same run.
# Without a GPU the first program says that a GPU is needed and the job exits non-zero.
#
#   scripts/main-job.sh BUILD_DIR [extra 03_all_store arguments]
# Results (JSON) go to $SYMM_RESULTS_DIR (default out/).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/main-job.sh BUILD_DIR [03_all_store arguments]}
shift
out=${SYMM_RESULTS_DIR:-out}
mkdir -p "$out"
if [ -z "${SYMM_GIT_COMMIT:-}" ] && git rev-parse HEAD >/dev/null 2>&1; then
  SYMM_GIT_COMMIT=$(git rev-parse HEAD)
  git diff --quiet HEAD 2>/dev/null || SYMM_GIT_COMMIT+="-dirty"
  export SYMM_GIT_COMMIT
fi

# all_store needs two ranks: on a one-GPU machine both share it (a correctness run; its
# timings say nothing about NVLink).
args=("$@")
if [ ${#args[@]} -eq 0 ] && [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" = 1 ]; then
  echo "symm: one GPU visible: 03_all_store runs 2 ranks on it (correctness, not speed)"
  args=(-r 2)
fi
"$build/examples/03_all_store/03_all_store" --validate --benchmark -o "$out/all_store.json" "${args[@]}"
"$build/tools/symm-bench/symm-bench" gemm --preset bench/gemm/quick.json --output "$out/gemm.json"
echo "symm: results in $out/"
