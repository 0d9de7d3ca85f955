#!/usr/bin/env bash
# Where our 2-block clusters lose time against single blocks (and cuBLASLt's pairs do not):
# ncu durations of 64x128 ping-pong pairs and singles and every cuBLASLt candidate on
# 1000 x 1000 x {64, 1024, 4096} (probes.txt, `scripts/gpu-gemm-check.sh durations`), first at
# COMMIT, then with no-multicast.patch applied (the pairs load all their tiles themselves,
# keeping the cluster and its barriers): if the pairs then run as the singles do, the cost is
# the multicast's; if not, it is the cluster's barriers and lockstep.
#   bash bench/results/gemm/2026-12-05-cluster-cost-plan/run.sh COMMIT
set -u
cd "$(dirname "$0")/../../../.."
D=bench/results/gemm/2026-12-05-cluster-cost-plan
C=${1:?commit}
W=$OUT/w
mkdir -p "$W"
SYMM_GIT_COMMIT=$C GPU_TESTS=0 PROBES=$D/probes.txt timeout 260 env OUT=$W/main scripts/gpu-gemm-check.sh durations \
  > "$W/main.out" 2>&1
echo "main: exit $?"; grep -E "^\|" "$W/main/durations.txt" | head -40
git apply "$D/no-multicast.patch" || { echo "patch did not apply"; exit 1; }
SYMM_GIT_COMMIT=$C-no-multicast GPU_TESTS=0 PROBES=$D/probes.txt timeout 260 env OUT=$W/nomc \
  scripts/gpu-gemm-check.sh durations > "$W/nomc.out" 2>&1
echo "no multicast: exit $?"; grep -E "^\|" "$W/nomc/durations.txt" | grep -i "persistent\|ours" | head -20
git apply -R "$D/no-multicast.patch"
rm -rf "$W/main/bin" "$W/nomc/bin"
