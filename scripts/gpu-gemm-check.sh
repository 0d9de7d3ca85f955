#!/usr/bin/env bash
# The GEMM's checks on a GPU machine in one go: binaries (carried in build/carry, or built
# here), SASS (HGMMA), the single-stage wgmma test, the GEMM tests, then the benchmark.
#
#   scripts/gpu-gemm-check.sh [tests|bench|all|quick|final|build|ab|profile|presets|probes|durations] [extra symm-bench arguments]
#
# build: only the binaries and the SASS check. final: a short test subset, the full benchmark and the untuned heuristic (bf16).
# quick: the tests, then bench/gemm/quick.json (bf16, one repeat) with each fast
# configuration forced in turn.
# ab: the cluster tests, then each of $AB_CONFIGS (default: 128x256x64s4 and its 2-block
# cluster) forced on every shape of the preset $AB_PRESET (default bench/gemm/clusters.json),
# $AB_DTYPE (fp16) with B as $AB_LAYOUT (nk), under each setting of $AB_SETTINGS (default:
# operand copies on, then off; e.g. "SYMM_GEMM_STREAM_K=0 SYMM_GEMM_STREAM_K=1").
# presets: the newest kernels' and the tuner's tests (unless GPU_TESTS=0), then the issue's
# figures: general.json (fp16 with B as N x K, bf16 with B as K x N) and issue4.json, tuned
# and untuned (each), and ragged.json (random ragged shapes, bf16 N x K); PRESET_RUNS=
# "preset dtype layout [--no-tune];..." runs those instead. table.md: every run's shapes
# with ours and cuBLASLt's configurations (tools/report/gemm-table).
# profile: ncu's full set (text report) of ours and of cuBLASLt's candidates where we trail:
# rows straddling 32-byte sectors (copies off), short K, one small wave; PROFILE_JOBS (format
# at the step) profiles other problems (fp16, B as N x K).
# probes: the GEMM GPU test (unless GPU_TESTS=0), then each line "M N K dtype layout
# config [VAR=value ...]" of the file $PROBES (# starts a comment; config "-": symm-bench's
# plan, tuned unless --no-tune is among the extra arguments) timed against cuBLASLt (2
# repeats), into probes.log and one results JSON per probe (probe-N.json, N its line among
# the probes, in probes.tgz).
# durations: each line of $PROBES (as probes) under ncu (--clock-control none): the kernel
# durations, L2 and DRAM traffic of ours and of every cuBLASLt candidate symm-bench tries,
# one table per probe from tools/report/ncu-durations (durations.txt; the CSVs in
# durations.tgz). What separates two kernels on small problems, launch to end.
# To carry binaries to the GPU machine (no build there): here,
#   SYMM_GIT_COMMIT=$(git rev-parse --short HEAD) scripts/gpu-gemm-check.sh build
#   mkdir -p build/carry && cp build/gemm-out/bin/COMMIT build/carry/ &&
#   tar cJf build/carry/bin.tar.xz -C build/gemm-out/bin symm-bench symm_gemm_gpu_test symm_gemm_plan_test \
#     symm_cublaslt_candidates_gpu_test
#   # then run there with carry: ["build/carry"]
# Logs and results go to $OUT (default build/gemm-out). The build is a standalone project
# of the GEMM's folders (plus src/launch and src/runtime for do_bench), so half-finished
# work elsewhere in the tree cannot stop it. Pass SYMM_GIT_COMMIT for the results file.
set -uo pipefail
export SYMM_REQUIRE_GPU=1  # on the GPU machine a GPU test that finds no GPU fails (tests/support)
export SYMM_GEMM_PLAN_CACHE=off  # measure the kernels built here, not plans recorded earlier
cd "$(dirname "$0")/.." || exit 1
root=$PWD
mode=${1:-all}
case "$mode" in
  tests | bench | all | quick | final | build | ab | profile | presets | probes | durations) ;;
  *) echo "usage: $0 [tests|bench|all|quick|final|build|ab|profile|presets|probes|durations] [extra symm-bench arguments]" >&2; exit 2 ;;
esac
shift || true
OUT=${OUT:-$root/build/gemm-out}
mkdir -p "$OUT"
say() { echo "== $*"; }
failures=()
failed() { failures+=("$1"); say "FAILED: $1"; }

timeout 30 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu \
  --format=csv | tee "$OUT/gpu.txt"

# Carried binaries are used only where they run here and were built from the commit
# named in SYMM_GIT_COMMIT (build/carry/COMMIT), so no stale binary is measured.
bin=$root/build/carry
carried=$(cat "$bin/COMMIT" 2>/dev/null || echo none)
# Carried compressed (the device tool carries 64 MiB at most): unpacked outside build/carry,
# which must stay small enough to carry again.
if [ -f "$bin/bin.tar.xz" ]; then
  bin=$(mktemp -d) && tar xJf "$root/build/carry/bin.tar.xz" -C "$bin"
  unpacked=$bin
  trap 'rm -rf "$unpacked"' EXIT
fi
if [ "$carried" != "${SYMM_GIT_COMMIT:-$carried}" ] || ! "$bin/symm_gemm_plan_test" --gtest_list_tests >/dev/null 2>&1; then
  say "carried binaries (commit $carried) unusable here or not of ${SYMM_GIT_COMMIT:-this tree}: building (standalone project, Release)"
  src=$root/build/gemm-standalone
  mkdir -p "$src"
  cat >"$src/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.25)
project(symm_gemm_standalone LANGUAGES CXX CUDA)
set(PROJECT_SOURCE_DIR $root)
list(APPEND CMAKE_MODULE_PATH $root/cmake)
include(SymmOptions)
include(SymmDependencies)
include(SymmCuda)
include(SymmTargets)
enable_testing()
foreach(d src/launch src/runtime src/device src/baselines kernels/gemm kernels/ops tools/symm-bench tests/support tests/cpu/gemm tests/gpu/gemm tests/gpu/harness tests/gpu/baselines tests/gpu/ops)
  if(EXISTS $root/\${d}/CMakeLists.txt)
    string(REPLACE "/" "_" b \${d})
    add_subdirectory($root/\${d} \${b})
  endif()
endforeach()
EOF
  # A build tree kept from an earlier call (a warm machine) recompiles only what changed:
  # the ptxas report then covers those instances only.
  incremental=()
  [ -f "$root/build/dev/build.ninja" ] && incremental=(--incremental)
  timeout 120 cmake -S "$src" -B "$root/build/dev" -G Ninja -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
    -DCMAKE_BUILD_TYPE=Release >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
  if ! timeout 900 cmake --build "$root/build/dev" -j "$(nproc)" --target symm_gemm_plan_test \
    symm_gemm_gpu_test symm-bench symm_cublaslt_candidates_gpu_test symm_gemm_ptx symm_ops_ptx >"$OUT/build.log" 2>&1; then
    grep -E "error|FAILED" "$OUT/build.log" | head -20
    say "build failed: $OUT/build.log"
    exit 1
  fi
  scripts/check-ptxas-report.sh "$OUT/build.log" "$root/build/dev" "${incremental[@]}" || failed ptxas-report
  bin=$OUT/bin
  mkdir -p "$bin"
  cp "$root"/build/dev/tests_cpu_gemm/symm_gemm_plan_test "$root"/build/dev/tests_gpu_gemm/symm_gemm_gpu_test \
    "$root"/build/dev/tests_gpu_baselines/symm_cublaslt_candidates_gpu_test \
    "$root"/build/dev/tools_symm-bench/symm-bench "$bin"/ || exit 1
  echo "${SYMM_GIT_COMMIT:-unknown}" >"$bin/COMMIT"
fi

say "SASS: HGMMA instructions in the GEMM kernels"
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
hgmma=$("$cuobjdump" --dump-sass "$bin/symm_gemm_gpu_test" | grep -c "HGMMA")
echo "HGMMA count: $hgmma"
[ "${hgmma:-0}" -gt 0 ] || failed "sass (no HGMMA)"
# --plans plans for the GPU it finds here (the cpu tier runs it with none visible).
say "symm-bench --plans with the GPU visible"
timeout 60 "$bin/symm-bench" gemm --mnk 777 4104 8200 --dtype bf16 --plans >"$OUT/plans.txt" 2>&1 &&
  grep -q "planned for GPU" "$OUT/plans.txt" || failed "symm-bench --plans"
head -1 "$OUT/plans.txt"

if [ "$mode" = tests ] || [ "$mode" = all ] || [ "$mode" = quick ]; then
  say "cpu tests"
  "$bin/symm_gemm_plan_test" --gtest_brief=1 2>&1 | tail -3 || failed cpu-tests
  say "single wgmma stage vs CPU"
  timeout 60 "$bin/symm_gemm_gpu_test" --gtest_filter='WgmmaTile*' >"$OUT/tile.log" 2>&1 || failed wgmma-tile
  grep -E "^\[  (     OK|FAILED|  SKIPPED) \]|Failure|mismatch" "$OUT/tile.log" | head -20
  # The newest paths first, each bounded: a failure turns the feature off for the
  # benchmark (SYMM_GEMM_PINGPONG=0, SYMM_GEMM_STREAM_K=0) instead of stopping the run.
  say "GEMM vs cuBLAS: ping-pong"
  timeout 60 "$bin/symm_gemm_gpu_test" --gtest_filter='*pingpong*:GemmPingpong*:GemmSplitK.Uneven*' \
    >"$OUT/gemm_test.log" 2>&1 ||
    { failed pingpong-tests; say "benchmark without ping-pong"; export SYMM_GEMM_PINGPONG=0; }
  say "GEMM vs cuBLAS: stream-K"
  timeout 60 "$bin/symm_gemm_gpu_test" --gtest_filter='GemmStreamK*' >>"$OUT/gemm_test.log" 2>&1 ||
    { failed stream-k-tests; say "benchmark without stream-K"; export SYMM_GEMM_STREAM_K=0; }
  say "GEMM vs cuBLAS: the rest"
  timeout 180 "$bin/symm_gemm_gpu_test" --gtest_filter='-WgmmaTile*:*pingpong*:GemmPingpong*:GemmSplitK.Uneven*:GemmStreamK*' \
    >>"$OUT/gemm_test.log" 2>&1
  test_rc=$?
  echo "exit $test_rc"
  [ "$test_rc" -eq 0 ] || failed gemm-tests
  grep -E "^\[  (     OK|FAILED|  SKIPPED) \]|Failure|mismatch|PASSED|FAILED" "$OUT/gemm_test.log" | head -60
  # A hang (timeout) would hang the benchmark too.
  [ "$test_rc" -eq 124 ] && { say "GEMM tests timed out: no benchmark"; exit 1; }
fi

if [ "$mode" = final ]; then
  "$bin/symm_gemm_plan_test" --gtest_brief=1 2>&1 | tail -1 || failed cpu-tests
  timeout 60 "$bin/symm_gemm_gpu_test" \
    --gtest_filter='WgmmaTile*:GemmSplitK*:GemmShard*:GemmFallback.Chosen*:GemmFallback.SplitK*' >"$OUT/gemm_test.log" 2>&1 ||
    failed gemm-tests
  grep -E "PASSED|FAILED" "$OUT/gemm_test.log"
  say "benchmark (bench/gemm/issue4.json)"
  timeout 200 "$bin/symm-bench" gemm --preset bench/gemm/issue4.json --output "$OUT/gemm.json" "$@" \
    2>&1 | tee "$OUT/bench.log" || failed "benchmark"
  say "heuristic plans, untuned (bf16)"
  timeout 100 "$bin/symm-bench" gemm --preset bench/gemm/issue4.json --dtype bf16 --repeats 1 \
    --no-tune --output "$OUT/untuned.json" 2>&1 | tee -a "$OUT/bench.log" || failed "benchmark"
fi

if [ "$mode" = quick ]; then
  for cfg in "" 128x256x64s4 256x128x64s4 128x192x64s4 128x128x64s6; do
    say "quick benchmark ${cfg:-heuristic}"
    timeout 120 "$bin/symm-bench" gemm --preset bench/gemm/quick.json --dtype bf16 --repeats 1 \
      --iters 10 ${cfg:+--config $cfg} --output "$OUT/quick${cfg:+_$cfg}.json" "$@" 2>&1 | tee -a "$OUT/bench.log" || failed "benchmark"
  done
fi

if [ "$mode" = ab ]; then
  say "cluster tests"
  timeout 180 "$bin/symm_gemm_gpu_test" --gtest_filter='GemmCluster*:*c2*:*c1x*' >"$OUT/gemm_test.log" 2>&1 ||
    failed cluster-tests
  grep -E "^\[  (     OK|FAILED) \]|PASSED|FAILED|Failure" "$OUT/gemm_test.log" | head -20
  # Each configuration forced on every shape of the preset, under each setting.
  for cfg in ${AB_CONFIGS:-128x256x64s4 128x256x64s4c2}; do
    for setting in ${AB_SETTINGS:-SYMM_GEMM_OPERAND_COPIES=1 SYMM_GEMM_OPERAND_COPIES=0}; do
      say "A/B $cfg, $setting"
      tag=${setting#SYMM_GEMM_}
      env "$setting" timeout 150 "$bin/symm-bench" gemm --preset "${AB_PRESET:-bench/gemm/clusters.json}" \
        --dtype "${AB_DTYPE:-fp16}" --layout "${AB_LAYOUT:-nk}" --repeats 2 --config "$cfg" \
        --output "$OUT/ab-$cfg-${AB_DTYPE:-fp16}-${AB_LAYOUT:-nk}-${tag//=/}.json" "$@" 2>&1 |
        tee -a "$OUT/bench.log" | grep -E "^ +[0-9]|geomean" || failed "A/B $cfg $setting"
    done
  done
  (cd "$OUT" && tar czf ab.tgz ab-*.json && rm -f ab-*.json)
fi

if [ "$mode" = presets ]; then
  if [ "${GPU_TESTS:-1}" != 0 ]; then
    say "cluster, ping-pong and stream-K tests"
    timeout 240 "$bin/symm_gemm_gpu_test" --gtest_filter='GemmCluster*:*c2*:*c1x*:*pingpong*:GemmPingpong*:GemmStreamK*:GemmCopies*:GemmTune*' \
      >"$OUT/gemm_test.log" 2>&1 || failed gemm-tests
    grep -E "^\[  FAILED|PASSED|FAILED TEST" "$OUT/gemm_test.log" | head -20
  fi
  runs=${PRESET_RUNS:-"general fp16 nk;general bf16 kn;general fp16 nk --no-tune;general bf16 kn --no-tune;\
issue4 bf16 nk;issue4 bf16 nk --no-tune;ragged bf16 nk;ragged bf16 nk --no-tune"}
  IFS=';' read -ra runs <<<"$runs"
  for run in "${runs[@]}"; do
    read -r preset dtype layout untuned <<<"$run"
    name=$preset-$dtype-$layout${untuned:+-untuned}
    say "$name"
    timeout 150 "$bin/symm-bench" gemm --preset "bench/gemm/$preset.json" --dtype "$dtype" --layout "$layout" \
      $untuned --output "$OUT/$name.json" "$@" >"$OUT/$name.log" 2>&1 || failed "$name"
    grep -E "geomean" "$OUT/$name.log"
  done
  # Per shape, ours and cuBLASLt's configurations side by side (one file back, not eight).
  (cd "$OUT" && shopt -s nullglob && tables=(./*-nk*.json ./*-kn*.json) && ((${#tables[@]})) &&
    "$root/tools/report/gemm-table" "${tables[@]}" >table.md) || failed gemm-table
  (cd "$OUT" && shopt -s nullglob && results=(./*-nk*.json ./*-kn*.json ./*-nk*.log ./*-kn*.log) &&
    tar czf presets.tgz "${results[@]}" && rm -f "${results[@]}")
fi

if [ "$mode" = durations ]; then
  [ -r "${PROBES:-}" ] || { say "durations: give PROBES=<file of 'M N K dtype layout config [VAR=value ...]' lines>"; exit 2; }
  mkdir -p "$OUT/durations"
  metrics=gpu__time_duration.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,launch__grid_size
  probe=0
  while read -r m n k dtype layout config vars; do
    probe=$((probe + 1))
    forced=(--config "$config")
    [ "$config" = - ] && forced=(--no-tune)  # "-": the heuristic's plan
    say "durations $probe: $m x $n x $k $dtype $layout $config $vars" | tee -a "$OUT/durations.txt"
    env $vars timeout 120 ncu --clock-control none --metrics "$metrics" --csv "$bin/symm-bench" gemm \
      --mnk "$m" "$n" "$k" --dtype "$dtype" --layout "$layout" "${forced[@]}" --repeats 1 --n_warmup 1 \
      --n_repeat 3 </dev/null >"$OUT/durations/probe-$probe.csv" 2>&1 || failed "durations $probe"
    tools/report/ncu-durations "$OUT/durations/probe-$probe.csv" | tee -a "$OUT/durations.txt" ||
      failed "ncu-durations $probe"
  done < <(grep -v '^ *\(#\|$\)' "$PROBES")
  (cd "$OUT" && tar czf durations.tgz durations && rm -rf durations)
fi

if [ "$mode" = probes ]; then
  [ -r "${PROBES:-}" ] || { say "probes: give PROBES=<file of 'M N K dtype layout config [VAR=value ...]' lines>"; exit 2; }
  if [ "${GPU_TESTS:-1}" != 0 ]; then
    say "GEMM GPU test"
    timeout 240 "$bin/symm_gemm_gpu_test" >"$OUT/gemm_test.log" 2>&1 || failed gemm-tests
    # The baseline the probes are timed against: its choice among cuBLASLt's candidates.
    timeout 60 "$bin/symm_cublaslt_candidates_gpu_test" >>"$OUT/gemm_test.log" 2>&1 || failed cublaslt-candidates
    grep -E "^\[  FAILED|PASSED|FAILED TEST|tests ran" "$OUT/gemm_test.log" | head -30
  fi
  mkdir -p "$OUT/probes"
  probe=0
  # Not a pipeline into the loop: a probe that fails (a wrong output, a refusal) must reach
  # `failed` in this shell.
  while read -r m n k dtype layout config vars; do
    probe=$((probe + 1))
    say "probe $probe: $m x $n x $k $dtype $layout $config $vars"
    forced=(--config "$config")
    [ "$config" = - ] && forced=()  # "-": symm-bench's plan
    env $vars timeout 60 "$bin/symm-bench" gemm --mnk "$m" "$n" "$k" --dtype "$dtype" --layout "$layout" \
      "${forced[@]}" --repeats 2 --output "$OUT/probes/probe-$probe.json" "$@" </dev/null >"$OUT/probes/probe-$probe.log" 2>&1 ||
      failed "probe-$probe"
    grep -E "^ +[0-9]|rror|nvalid|refused" "$OUT/probes/probe-$probe.log" | tee -a "$OUT/probes.log"
  done < <(grep -v '^ *\(#\|$\)' "$PROBES")
  (cd "$OUT" && tar czf probes.tgz probes && rm -rf probes)
fi

if [ "$mode" = profile ]; then
  say "ping-pong tests"
  timeout 120 "$bin/symm_gemm_gpu_test" --gtest_filter='*pingpong*:GemmPingpong*' >"$OUT/gemm_test.log" 2>&1 ||
    failed pingpong-tests
  grep -E "PASSED|FAILED" "$OUT/gemm_test.log"
  mkdir -p "$OUT/profile"
  # name:M N K:kernel regex:launches:our configuration:environment; PROFILE_JOBS="job;job;..."
  # profiles those instead.
  jobs=${PROFILE_JOBS:-"straddle-ours:6144 3456 4104:persistent:1:128x256x64s4:SYMM_GEMM_OPERAND_COPIES=0;\
aligned-ours:6144 3456 4096:persistent:1:128x256x64s4:;straddle-cublas:6144 3456 4104:nvjet|sm90:24:128x256x64s4:;\
shortk-ours:16384 4096 1792:persistent:1:128x256x64s4:;small-ours:1000 1000 1000:persistent:1:128x128x64s6-pingpong:;\
small-cublas:1000 1000 1000:nvjet|sm90:24:128x128x64s6-pingpong:"}
  IFS=';' read -ra jobs <<<"$jobs"
  for job in "${jobs[@]}"; do
    IFS=: read -r name run kernels count config vars <<<"$job"
    say "ncu $name ($run)"
    env $vars timeout 150 ncu --clock-control none --set full -k "regex:$kernels" --launch-count "$count" \
      -o "$OUT/profile/$name" "$bin/symm-bench" gemm --mnk $run --dtype fp16 --config "$config" \
      --repeats 1 --n_warmup 1 --n_repeat 2 >"$OUT/profile/$name.log" 2>&1 || failed "ncu $name"
    ncu -i "$OUT/profile/$name.ncu-rep" --page details >"$OUT/profile/$name.txt" 2>&1
    grep -E "^  [a-z_]|Duration|Compute \(SM\) Throughput|L2 Cache Throughput" "$OUT/profile/$name.txt" | head -12
  done
  (cd "$OUT" && tar czf profile.tgz profile && rm -rf profile)
fi

if [ "$mode" = bench ] || [ "$mode" = all ]; then
  say "benchmark (bench/gemm/issue4.json)"
  timeout 300 "$bin/symm-bench" gemm --preset bench/gemm/issue4.json --output "$OUT/gemm.json" "$@" \
    2>&1 | tee -a "$OUT/bench.log" || failed "benchmark"
  say "mma.sync fallback (forced) vs cuBLAS"
  SYMM_GEMM_FORCE_FALLBACK=1 timeout 120 "$bin/symm-bench" gemm --preset bench/gemm/quick.json \
    --output "$OUT/fallback.json" 2>&1 | tee -a "$OUT/bench.log" || failed "benchmark"
  say "heuristic plans, untuned (bf16)"
  timeout 120 "$bin/symm-bench" gemm --preset bench/gemm/issue4.json --dtype bf16 --repeats 1 \
    --no-tune --output "$OUT/untuned.json" 2>&1 | tee -a "$OUT/bench.log" || failed "benchmark"
  say "B as K x N"
  timeout 60 "$bin/symm-bench" gemm --mnk 8192 8192 8192 --layout kn --repeats 1 \
    --output "$OUT/kn.json" 2>&1 | tee -a "$OUT/bench.log" || failed "benchmark"
fi

if [ ${#failures[@]} -gt 0 ]; then
  say "gpu-gemm-check: FAILED: ${failures[*]}"
  exit 1
fi
say "gpu-gemm-check: every step passed"
