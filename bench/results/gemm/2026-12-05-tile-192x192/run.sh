#!/usr/bin/env bash
# 192x192 tiles (tile-192x192.patch: three consumers of 64 x 192 rows and columns, one
# staging tile each, alone and in 2 x 1 and 1 x 2 clusters) timed against cuBLASLt and our
# untuned plan on the shapes of probes.txt (scripts/gpu-gemm-check.sh probes, outputs
# checked, 2 repeats). One device call, about 6 minutes:
#   scripts/device-call.sh tile192 590 bash bench/results/gemm/2026-12-05-tile-192x192/run.sh COMMIT
set -u
cd "$(dirname "$0")/../../../.."
T=bench/results/gemm/2026-12-05-tile-192x192
C=${1:?commit}
git apply "$T/tile-192x192.patch" || { echo "patch did not apply"; exit 1; }
SYMM_GIT_COMMIT=$C-tile-192x192 GPU_TESTS=0 PROBES=$T/probes.txt timeout 560 scripts/gpu-gemm-check.sh probes --no-tune
echo "probes: exit $?"
git apply -R "$T/tile-192x192.patch"
rm -rf "$OUT/bin"
