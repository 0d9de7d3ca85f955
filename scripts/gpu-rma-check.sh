#!/usr/bin/env bash
# Checks the device RMA API (issue 3) on a GPU machine, in four steps:
#   1. build the rma tests and examples 00-06 (skipped with SKIP_BUILD=1 and a built BUILD)
#   2. the gpu and multigpu tests of the API (2 ranks; on one GPU they share it)
#   3. compute-sanitizer memcheck and racecheck on examples 00-06, 2 ranks, small sizes,
#      every process followed (--target-processes all), the wait budget raised
#   4. the example benchmarks on every visible GPU, JSON results under $OUT
# Then it prints a summary; the exit code is non-zero when any step failed.
#
#   OUT=/tmp/rma SYMM_GIT_COMMIT=$(git rev-parse HEAD) scripts/gpu-rma-check.sh
#
# Knobs: OUT (results, default out/gpu-rma), BUILD (default build/gpu-rma),
# SKIP_BUILD=1, STEPS (which steps, in that order; default "tests sanitizer bench"),
# BENCH_ARGS (extra example arguments, default "--n_warmup 5 --n_repeat 20"),
# SANITIZER_TIMEOUT (seconds per sanitized run, default 900).
set -uo pipefail
export SYMM_REQUIRE_GPU=1  # on the GPU machine a GPU test that finds no GPU fails (tests/support)
cd "$(dirname "$0")/.."

OUT=${OUT:-$PWD/out/gpu-rma}  # out/ is ignored by git
BUILD=${BUILD:-build/gpu-rma}
STEPS=${STEPS:-tests sanitizer bench}
for step in $STEPS; do
  case "$step" in
    tests | sanitizer | bench) ;;
    *) echo "STEPS: unknown step '$step' (known: tests sanitizer bench)" >&2; exit 2 ;;
  esac
done
BENCH_ARGS=${BENCH_ARGS:---n_warmup 5 --n_repeat 20}
EXAMPLES=(00_load 01_store 02_all_load 03_all_store 04_atomic_add 05_atomic_xchg 06_message_passing)
export SYMM_GIT_COMMIT=${SYMM_GIT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
mkdir -p "$OUT"
failures=()

note() { printf '\n=== %s\n' "$*"; }
STEP_LOGS=$OUT
source scripts/lib/step.sh

timeout 30 nvidia-smi -L || { echo "no GPU visible"; exit 1; }

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  note "build ($BUILD)"
  timeout 120 cmake -S . -B "$BUILD" -G Ninja -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
    -DCMAKE_BUILD_TYPE=Release >"$OUT/configure.log" 2>&1 || { tail "$OUT/configure.log"; exit 1; }
  targets=(symm_rma_atomic_test symm_rma_rma_test symm_rma_ordering_test symm_rma_failure_test
           symm_rma_multigpu_test)
  for e in "${EXAMPLES[@]}"; do targets+=("symm_example_$e"); done
  timeout 900 cmake --build "$BUILD" -j "$(nproc)" --target "${targets[@]}" >"$OUT/build.log" 2>&1 \
    || { tail -n 40 "$OUT/build.log"; exit 1; }
fi

step_tests() {
  note "gpu and multigpu tests"
  for t in "$BUILD"/tests/gpu/rma/symm_rma_*_test "$BUILD"/tests/multigpu/rma/symm_rma_multigpu_test; do
    step "test-$(basename "$t")" 600 "$t"
    grep -hE "litmus|message passing" "$OUT/test-$(basename "$t").log" | sed 's/^/    /'
  done
}

step_sanitizer() {
  note "compute-sanitizer on examples 00-06 (2 ranks)"
  local sanitizer small args e tool
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  small=(-r 2 --validate --n_warmup 0 --n_repeat 1 -o "")
  for e in "${EXAMPLES[@]}"; do
    case $e in
      04_*|05_*) args=("${small[@]}" --iterations 20 --blocks 4) ;;
      06_*) args=("${small[@]}" --iterations 20 --max_bytes 4KiB) ;;
      *) args=("${small[@]}" --min_bytes 4KiB --max_bytes 256KiB --blocks 8) ;;
    esac
    for tool in memcheck racecheck; do
      SYMM_WAIT_TIMEOUT_MS=600000 step "sanitizer-$tool-$e" "${SANITIZER_TIMEOUT:-900}" "$sanitizer" --tool "$tool" \
        --target-processes all --error-exitcode 99 "$BUILD/examples/$e/$e" "${args[@]}"
      grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer-$tool-$e.log" | sort | uniq -c | sed 's/^/    /'
    done
  done
}

step_bench() {
  note "example benchmarks on every visible GPU (JSON in $OUT)"
  local e ranks=()
  # The examples need two ranks: on one GPU both share it (correctness, not speed).
  [ "$(timeout 30 nvidia-smi -L | wc -l)" -lt 2 ] && ranks=(-r 2)
  for e in "${EXAMPLES[@]}"; do
    # shellcheck disable=SC2086
    step "bench-$e" 900 "$BUILD/examples/$e/$e" "${ranks[@]}" --validate --benchmark -o "$OUT/$e.json" $BENCH_ARGS
    sed -n '/^[0-9][0-9]_.*: /,$p' "$OUT/bench-$e.log"
  done
}

for step in $STEPS; do "step_$step"; done

note "summary"
if [ ${#failures[@]} -eq 0 ]; then
  echo "every step passed; logs and JSON in $OUT"
else
  printf 'FAILED: %s\n' "${failures[@]}"
  exit 1
fi
