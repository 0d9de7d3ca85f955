#!/usr/bin/env bash
# A/B of a change to GEMM + all-scatter in one device call: the working tree ("new")
# against the device copy's last landed commit ("base", a git worktree, optionally
# patched), both built at once; the op's GPU tests on the new build; then the one-GPU
# proxy (scripts/gpu-proxy-figures.sh) running both builds in turn on every shape and
# setting, and a table of each contender's ratio to gemm_alone, base against new.
#
#   OUT=... scripts/gpu-ab.sh <base commit> <new commit>
#
# The commits only label the results (the device copy has no history beyond its HEAD).
# AB_BASE_PATCH  a patch (from the repository root) applied to the base worktree: to
#                compare against another commit than the landed one
# AB_TESTS       0: skip the op's GPU tests (default 1)
# AB_SIZES, AB_SETTINGS, AB_VARIANTS, AB_REPEAT, AB_DTYPES, AB_ROUNDS: PROXY_SIZES, ... of
#                gpu-proxy-figures.sh (defaults: six short- and long-K shards given as
#                global sizes; the plan as made; the copy variants and tma_push; 20; bf16;
#                2 rounds, base new new base)
# The table gives each contender's mean ratio over the rounds and, with several rounds,
# their range: a change smaller than the ranges (or than tma_push's move, where the change
# leaves tma_push alone) is not a measured change.
# Logs, results JSON and ab.md (the table) in $OUT (default out/ab).
set -uo pipefail
cd "$(dirname "$0")/.."
base_commit=${1:?usage: $0 <base commit> <new commit>}
new_commit=${2:?usage: $0 <base commit> <new commit>}
# Refused before the builds, not after them (the proxy script checks it again).
[[ ${AB_ROUNDS:-2} =~ ^[1-9][0-9]*$ ]] || { echo "gpu-ab: AB_ROUNDS must be a positive count, not '$AB_ROUNDS'" >&2; exit 2; }
out=${OUT:-out/ab}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export SYMM_GEMM_PLAN_CACHE=off SYMM_REQUIRE_GPU=1 CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
timeout 30 nvidia-smi --query-gpu=name,driver_version --format=csv >"$out/gpu.txt"
program=build/release/examples/10_gemm_all_scatter_wg_specialization/10_gemm_all_scatter_wg_specialization
base=/tmp/symm-ab-base
start=$SECONDS

git worktree remove -f "$base" >/dev/null 2>&1
rm -rf "$base"  # left by a call that was killed, where git no longer knows the worktree
git worktree prune >/dev/null 2>&1
git worktree add -f "$base" HEAD >"$out/worktree.log" 2>&1 || { cat "$out/worktree.log"; exit 1; }
if [ -n "${AB_BASE_PATCH:-}" ]; then
  git -C "$base" apply "$PWD/$AB_BASE_PATCH" || { echo "gpu-ab: $AB_BASE_PATCH does not apply to the base"; exit 1; }
fi
jobs=$(nproc)
# Bounded: a build that hangs must leave the call time to say so.
(cd "$base" && timeout 120 cmake --preset release &&
  timeout 480 cmake --build --preset release -j $((jobs / 3 + 1)) --target "$(basename "$program")") \
  >"$out/build-base.log" 2>&1 &
base_build=$!
{ timeout 120 cmake --preset release && timeout 480 cmake --build --preset release -j $((jobs * 2 / 3 + 1)) \
    --target symm_gemm_all_scatter_test "$(basename "$program")"; } >"$out/build-new.log" 2>&1
new_rc=$?
wait $base_build
base_rc=$?
echo "builds: new rc=$new_rc, base rc=$base_rc, $((SECONDS - start)) s"
[ $new_rc -eq 0 ] || { grep -m 20 -E "error" "$out/build-new.log"; exit 1; }
[ $base_rc -eq 0 ] || { grep -m 20 -E "error" "$out/build-base.log"; exit 1; }

rc=0
if [ "${AB_TESTS:-1}" != 0 ]; then
  SYMM_GIT_COMMIT=$new_commit timeout -k 10 240 ctest --test-dir build/release -R GemmAllScatter -L gpu \
    --output-on-failure --timeout 150 >"$out/ops-tests.log" 2>&1 || rc=1
  echo "op tests: $(grep -E 'tests passed|tests failed' "$out/ops-tests.log") $((SECONDS - start)) s"
  grep -E "\(Failed\)|Timeout" "$out/ops-tests.log" | head -n 20
fi

OUT=$out PROXY_BUILDS="base:$base_commit:$base/$program new:$new_commit:$program" \
  PROXY_SIZES="${AB_SIZES:-2000 8000 3000;2048 8192 4096;6120 6800 4104;4096 14336 8192;8192 4608 18432;4096 4608 36864}" \
  PROXY_SETTINGS="${AB_SETTINGS:-;}" PROXY_VARIANTS="${AB_VARIANTS:-tma_push,wg_specialization,producer_consumer}" \
  PROXY_REPEAT="${AB_REPEAT:-20}" PROXY_DTYPES="${AB_DTYPES:-bf16}" PROXY_ROUNDS="${AB_ROUNDS:-2}" \
  scripts/gpu-proxy-figures.sh >"$out/proxy-run.log" 2>&1 || rc=1
echo "proxy runs done, $((SECONDS - start)) s"
# base against new, one row per (shape, setting, contender): mean ratio over the rounds
# and its range.
tools/report/proxy-table ab "$out" | tee "$out/ab.md" || rc=1
git worktree remove -f "$base" >/dev/null 2>&1
exit $rc
