#!/usr/bin/env bash
# Mutation check: puts small deliberate bugs back, one at a time, into a scratch copy of
# the working tree and reports which ones no test caught (docs/testing.md: a test is
# trusted only once seen to fail on its bug). On demand, not in CI.
#
#   scripts/mutation-check.sh [--tier cpu|gpu|multigpu|all] [tests/mutations/<file>.patch ...]
#
# Default: every mutation of the cpu tier. Gpu and multigpu mutations need a GPU machine
# (set SYMM_REQUIRE_GPU=1 there, so a test that skips cannot count as caught or survived).
#
# A mutation is one file in tests/mutations/, named <tier>-<area>-<bug>.patch: a header
# of "# key: value" lines, then a patch that `git apply` takes (paths a/... b/... from
# the repository root, as `git diff` writes them):
#   # tier: cpu                      the CTest label of the tests that must catch it
#   # targets: symm_launch_tests     the test binaries to rebuild (space-separated; "none"
#                                    for tests that run sources as they are: Python tools)
#   # tests: Join\.AcceptsARank...   a `ctest -R` pattern: tests that must go red
#   # bug: one line saying what the deliberate bug is
#
# For each mutation: the targets are built and the matched tests must pass on the clean
# copy (else the mutation is not judged), then the patch is applied, the targets rebuilt
# and the tests run: caught when one fails, SURVIVED when all pass (SKIPPED when every
# matched test skipped on the clean copy: nothing was judged). The patch is reverted
# before the next one. Exit status: 0 only when every mutation run was caught.
#
# The scratch copy (SYMM_MUTATION_DIR, default /tmp/symm-mutation) keeps its build
# between runs; files are copied only where their content changed, so a rerun rebuilds
# only what changed. Output of each step: $SYMM_MUTATION_DIR/logs/.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
scratch=${SYMM_MUTATION_DIR:-/tmp/symm-mutation}
src=$scratch/src
build=$scratch/build
logs=$scratch/logs
tier=cpu
mutations=()
while (($#)); do
  case $1 in
    --tier) tier=${2:?--tier needs cpu, gpu, multigpu or all}; shift 2 ;;
    -h | --help) sed -n '2,28p' "$0"; exit 0 ;;
    -*) echo "mutation-check: unknown option $1" >&2; exit 2 ;;
    *) [ -f "$1" ] || { echo "mutation-check: no such mutation file: $1" >&2; exit 2; }
       mutations+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"); shift ;;
  esac
done
case $tier in cpu | gpu | multigpu | all) ;; *) echo "mutation-check: unknown tier $tier" >&2; exit 2 ;; esac
named=${#mutations[@]}
((named)) || mutations=("$root"/tests/mutations/*.patch)

header() { sed -n "s/^# $1: *//p" "$2" | head -n 1; }

# The tree's files: tracked and untracked ones git does not ignore; where the copy has no
# git history (the GPU machine), every file outside build*/ and out/.
tree_files() {
  cd "$root" || return
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files --cached --others --exclude-standard | while read -r f; do [ -f "$f" ] && echo "$f"; done
  else
    find . \( -name '.git' -o -path './build*' -o -path ./out \) -prune -o -type f -print | sed 's|^\./||'
  fi
}

# Brings the scratch copy to the tree's content and modes (a script's execute bit is
# tested), touching only files that differ (so a reused build rebuilds only what
# changed), and removes files gone from the tree.
sync_copy() {
  mkdir -p "$src" "$logs"
  local list=$scratch/files
  tree_files | sort >"$list"
  while read -r f; do
    if ! cmp -s "$root/$f" "$src/$f" || [ "$(stat -c %a "$root/$f")" != "$(stat -c %a "$src/$f")" ]; then
      mkdir -p "$(dirname "$src/$f")"
      cp --preserve=mode "$root/$f" "$src/$f"
    fi
  done <"$list"
  (cd "$src" && find . -type f | sed 's|^\./||' | sort) | comm -13 "$list" - | while read -r f; do rm -f "$src/$f"; done
}

# The applied patch is also named in $marker until it is reverted in order: a run stopped
# mid-build may leave objects compiled from the mutant that are newer than the sources
# the exit trap restored, so the next run touches the files that patch changed.
marker=$scratch/applied
applied=""
apply() {
  echo "$1" >"$marker"
  (cd "$src" && git apply "$1") && applied=$1
}
revert() {
  [ -n "$applied" ] && (cd "$src" && git apply -R "$applied")
  applied=""
}
trap revert EXIT
trap "exit 130" INT TERM  # so that the EXIT trap reverts the patch

build_targets() {  # build_targets <log> <target>... ("none": nothing to build)
  local log=$1
  shift
  if [ "$*" = none ]; then echo "nothing to build" >"$log"; return 0; fi
  cmake --build "$build" --target "$@" >"$log" 2>&1
}

run_tests() {  # run_tests <log> <pattern>: 0 when every matched test passes; 3 when none matched
  local log=$1 pattern=$2
  (cd "$build" && ctest -R "$pattern" --output-on-failure --no-tests=error) >"$log" 2>&1 && return 0
  grep -q "No tests were found" "$log" && return 3
  return 1
}

sync_copy
if [ -f "$marker" ]; then
  (cd "$src" && sed -n 's|^+++ b/||p' "$(cat "$marker")" | xargs -r touch)
  rm -f "$marker"
fi
(cd "$src" && cmake --preset ci -B "$build") >"$logs/configure.log" 2>&1 ||
  { echo "mutation-check: configuring the scratch copy failed: $logs/configure.log" >&2; exit 1; }

printf '%-52s %-8s %s\n' mutation result "tests (ctest -R)"
status=0
for mutation in "${mutations[@]}"; do
  name=$(basename "$mutation" .patch)
  m_tier=$(header tier "$mutation")
  targets=$(header targets "$mutation")
  pattern=$(header tests "$mutation")
  if [ -z "$m_tier" ] || [ -z "$targets" ] || [ -z "$pattern" ]; then
    printf '%-52s %-8s %s\n' "$name" BAD-FILE "needs tier, targets and tests headers"; status=1; continue
  fi
  if [ "$tier" != all ] && [ "$tier" != "$m_tier" ]; then
    # Named on the command line: never skipped without a word (the default tier is cpu).
    ((named)) && { printf '%-52s %-8s %s\n' "$name" OTHER-TIER "a $m_tier mutation: give --tier $m_tier (or all)"; status=1; }
    continue
  fi
  # shellcheck disable=SC2086 # targets are a space-separated list
  if ! build_targets "$logs/$name.clean-build.log" $targets; then
    printf '%-52s %-8s %s\n' "$name" NO-BUILD "the clean copy does not build: $logs/$name.clean-build.log"; status=1; continue
  fi
  run_tests "$logs/$name.clean-tests.log" "$pattern"
  case $? in
    0) ;;
    3) printf '%-52s %-8s %s\n' "$name" NO-TESTS "$pattern matches no test"; status=1; continue ;;
    *) printf '%-52s %-8s %s\n' "$name" RED-CLEAN "fails without the bug: $logs/$name.clean-tests.log"; status=1; continue ;;
  esac
  if [ "$(grep -c '\*\*\*Skipped' "$logs/$name.clean-tests.log")" -eq "$(grep -cE 'Test +#[0-9]+: ' "$logs/$name.clean-tests.log")" ]; then
    printf '%-52s %-8s %s\n' "$name" SKIPPED "every test of $pattern skipped here (a GPU tier without its GPUs?)"; status=1; continue
  fi
  if ! apply "$mutation" 2>"$logs/$name.apply.log"; then
    printf '%-52s %-8s %s\n' "$name" NO-APPLY "$(head -n 1 "$logs/$name.apply.log")"; status=1; continue
  fi
  # shellcheck disable=SC2086
  if ! build_targets "$logs/$name.build.log" $targets; then
    printf '%-52s %-8s %s\n' "$name" NO-BUILD "the mutant does not build: $logs/$name.build.log"; status=1
  elif run_tests "$logs/$name.tests.log" "$pattern"; then
    printf '%-52s %-8s %s\n' "$name" SURVIVED "$pattern"; status=1
  else
    printf '%-52s %-8s %s\n' "$name" caught "$pattern: $(grep -cE '\*\*\*(Failed|Timeout|Exception)' "$logs/$name.tests.log") red"
  fi
  # Reverting rewrites the patched files, so they are newer than every mutant object and
  # the next build of any target recompiles them: no rebuild needed here.
  revert && rm -f "$marker"
done
exit $status
