#!/usr/bin/env bash
# One device call, one build with three experiment patches applied (each switched at run
# time, or a tile only forced, so every probe below runs the same binaries):
#  - lsu-loads.patch: SYMM_EXPERIMENT_LSU_LOADS=1 loads the stages of single blocks with
#    16-byte cp.async from the producer warpgroup's 128 threads instead of TMA (probes.txt);
#  - ../2026-12-05-l2-promotion/promotion-env.patch: SYMM_EXPERIMENT_L2_PROMOTION sets the
#    L2 promotion of TMA maps whose rows start inside a sector (that folder's probes.txt);
#  - ../2026-12-05-tile-192x192/tile-192x192.patch: 192x192 tiles, forced only (its probes),
#    while the call's deadline allows.
#   scripts/device-call.sh lsu 590 [env DEADLINE_S=565] bash bench/results/gemm/2026-12-05-lsu-loads/run.sh COMMIT
set -u
cd "$(dirname "$0")/../../../.."
R=bench/results/gemm
patches=("$R/2026-12-05-lsu-loads/lsu-loads.patch" "$R/2026-12-05-l2-promotion/promotion-env.patch"
  "$R/2026-12-05-tile-192x192/tile-192x192.patch")
C=${1:?commit}
start=$SECONDS
git apply "${patches[@]}" || { echo "patches did not apply"; exit 1; }
top=$OUT
# TILE_PROBES=probes-short.txt: the shorter list of the 192x192 folder.
declare -A PROBE_FILE=([tile-192x192]=${TILE_PROBES:-probes.txt})
for run in lsu-loads l2-promotion tile-192x192; do
  left=$((${DEADLINE_S:-565} - (SECONDS - start)))
  ((left > 30)) || { echo "$run: no time left"; continue; }
  OUT=$top/$run SYMM_GIT_COMMIT=$C-experiments GPU_TESTS=0 PROBES=$R/2026-12-05-$run/${PROBE_FILE[$run]:-probes.txt} timeout $left \
    scripts/gpu-gemm-check.sh probes --no-tune
  echo "$run probes: exit $? after $((SECONDS - start)) s"
done
git apply -R "${patches[@]}"
rm -rf "$top"/*/bin
