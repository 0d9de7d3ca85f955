#!/usr/bin/env bash
# One device call, one build with two experiment patches applied:
#  - promotion-env.patch: SYMM_EXPERIMENT_L2_PROMOTION (none, 64, 128, 256) sets the L2
#    promotion of TMA maps whose rows start inside a 32-byte sector (128 B as built); the
#    probes of this folder time each on straddling shapes, untuned plans or forced tiles;
#  - ../2026-12-05-tile-192x192/tile-192x192.patch: 192x192 tiles (unrated, forced only),
#    then timed on that folder's probes while the call's deadline allows.
#   scripts/device-call.sh promo 590 bash bench/results/gemm/2026-12-05-l2-promotion/run.sh COMMIT
set -u
cd "$(dirname "$0")/../../../.."
D=bench/results/gemm/2026-12-05-l2-promotion
T=bench/results/gemm/2026-12-05-tile-192x192
C=${1:?commit}
start=$SECONDS
git apply "$D/promotion-env.patch" "$T/tile-192x192.patch" || { echo "patches did not apply"; exit 1; }
OUT=$OUT/promotion SYMM_GIT_COMMIT=$C-promotion-env GPU_TESTS=0 PROBES=$D/probes.txt timeout 430 \
  scripts/gpu-gemm-check.sh probes --no-tune
echo "promotion probes: exit $? after $((SECONDS - start)) s"
left=$((570 - (SECONDS - start)))
((left > 30)) && OUT=$OUT/tile192 SYMM_GIT_COMMIT=$C-tile-192x192 GPU_TESTS=0 PROBES=$T/probes.txt timeout $left \
  scripts/gpu-gemm-check.sh probes --no-tune
echo "tile-192x192 probes: exit $? after $((SECONDS - start)) s"
git apply -R "$D/promotion-env.patch" "$T/tile-192x192.patch"
rm -rf "$OUT"/*/bin
