#!/usr/bin/env bash
# GPU call (an H100): build the commit, list the untuned plans the memory-bandwidth term of
# the straddle model moves for this GPU (tools/report/plan-replay against the plans of
# 8728f13, before the term), time each moved plan's old and new configuration forced in the
# same call, then the untuned presets.
#   bash bench/results/gemm/2026-12-05-bandwidth-h100/run.sh COMMIT
set -u
cd "$(dirname "$0")/../../../.."
D=bench/results/gemm/2026-12-05-bandwidth-h100
C=${1:?commit}
W=$OUT/w
mkdir -p "$W"
SYMM_GIT_COMMIT=$C timeout 300 env OUT=$W/build scripts/gpu-gemm-check.sh build > "$W/build.out" 2>&1
echo "build exit $?"; tail -3 "$W/build.out"
BIN=$W/build/bin
timeout 60 "$BIN/symm_gemm_plan_test" --gtest_brief=1 > "$W/plan_test.log" 2>&1; echo "plan test exit $?"; tail -3 "$W/plan_test.log"
"$BIN/symm-bench" gemm --mnk 1 1 1 --plans | head -1
timeout 60 tools/report/plan-replay "$BIN/symm-bench" "$W/plans-$C.json" "$D/plans-8728f13.json" --probes "$W/probes.txt" > "$W/moved.txt" 2>&1
echo "replay exit $?"; tail -1 "$W/moved.txt"
# bf16 only (fp16 moves the same problems): about 3 s a probe
awk '/^#/ { keep = index($0, " bf16 ") > 0 } keep' "$W/probes.txt" > "$W/probes-bf16.txt"
echo "probes: $(grep -vc '^#' "$W/probes-bf16.txt")"
SYMM_GIT_COMMIT=$C GPU_TESTS=0 PROBES=$W/probes-bf16.txt timeout 270 env OUT=$W/probes scripts/gpu-gemm-check.sh probes > "$W/probes.out" 2>&1
echo "probes exit $?"
SYMM_GIT_COMMIT=$C GPU_TESTS=0 PRESET_RUNS="general bf16 kn --no-tune;ragged bf16 nk --no-tune" \
  timeout 200 env OUT=$W/presets scripts/gpu-gemm-check.sh presets > "$W/presets.out" 2>&1
echo "presets exit $?"; grep -E "^==|geomean" "$W/presets.out" | tail -12
rm -rf "$W/build/bin" "$W/probes/bin" "$W/presets/bin"
