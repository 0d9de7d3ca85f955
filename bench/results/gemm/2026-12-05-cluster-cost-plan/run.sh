#!/usr/bin/env bash
# Where our 2-block clusters lose time against single blocks (and cuBLASLt's pairs do not),
# and what the fixed cost of a small problem is made of: ncu durations of 64x128 ping-pong
# pairs and singles and every cuBLASLt candidate on 1000 x 1000 x {64, 1000, 1024, 4096}
# (probes.txt, `scripts/gpu-gemm-check.sh durations`) at COMMIT, then of the pairs alone
# (pair-probes.txt) with each VARIANT applied in turn, while DEADLINE_S (default 560) seconds
# of the call are left for its build and probes (VARIANT.probes.txt instead where there is
# one). A variant is a patch of this folder, or several joined by '+' (applied together):
#   no-multicast        64-row clusters load all their tiles themselves (cluster and barriers kept):
#                       if they then run as the singles do, the cost is the multicast's
#   spread-release      a stage goes back to the cluster's blocks from one thread per block
#                       in one instruction (own block through its local address), not one
#                       thread arriving on each in turn
#   no-exit-sync        no cluster barrier at exit (the producers' drain already waits for
#                       every release of every block)
#   prefetch-tensormaps the TMA descriptors prefetched at kernel start (every kernel, singles
#                       too: VARIANT_PROBES=probes.txt times them all)
#   tile-128x64         128x64 tiles (two consumers of 64 x 64), alone and in 1 x 2 clusters
#   test-wait           a wait that fails its first try_wait polls with test_wait (no suspension)
#   warp-release        the 64-row quads release a stage from lane 0 of each consumer warp, one
#                       block each (cuBLASLt's form), not from one thread four times
#   bash bench/results/gemm/2026-12-05-cluster-cost-plan/run.sh COMMIT [VARIANT ...]
# MAIN_PROBES names another file of this folder for the first step (quad-probes.txt: the
# 64x144 quads; with VARIANT_PROBES=quad-probes.txt the variants time them too).
set -u
cd "$(dirname "$0")/../../../.."
D=bench/results/gemm/2026-12-05-cluster-cost-plan
C=${1:?commit}
shift
patches=("$@")
((${#patches[@]})) || patches=(no-multicast spread-release no-exit-sync)
deadline=$((SECONDS + ${DEADLINE_S:-560}))
W=$OUT/w
mkdir -p "$W"
durations() {  # NAME PROBES SECONDS
  SYMM_GIT_COMMIT=$C-$1 GPU_TESTS=0 PROBES=$2 timeout "$3" env OUT="$W/$1" scripts/gpu-gemm-check.sh durations \
    >"$W/$1.out" 2>&1
  echo "$1: exit $?"
  cut -c1-150 "$W/$1/durations.txt" | head -70
}
durations main "$D/${MAIN_PROBES:-probes.txt}" $((deadline - SECONDS))
for variant in "${patches[@]}"; do
  left=$((deadline - SECONDS))
  ((left > 180)) || { echo "$variant: skipped, $left s left"; continue; }
  IFS=+ read -ra parts <<<"$variant"
  applied=()
  for part in "${parts[@]}"; do
    git apply "$D/$part.patch" || { echo "$variant: $part did not apply"; break; }
    applied+=("$part")
  done
  probes=$D/${VARIANT_PROBES:-pair-probes.txt}
  [ -f "$D/$variant.probes.txt" ] && probes=$D/$variant.probes.txt
  ((${#applied[@]} == ${#parts[@]})) && durations "$variant" "$probes" "$left"
  for ((i = ${#applied[@]} - 1; i >= 0; i--)); do git apply -R "$D/${applied[i]}.patch"; done
done
rm -rf "$W"/*/bin
