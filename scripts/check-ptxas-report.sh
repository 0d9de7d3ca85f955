#!/usr/bin/env bash
# Checks every GEMM and fused-op kernel instance without a GPU: ptxas's per-kernel report
# (registers, spills, local-memory stack frames, serialised wgmma) from the build log, and
# the PTX of every WGMMA and fused instance (wgmma.mma_async, setmaxnreg and TMA in every
# GEMM kernel entry, and only relaxed arrivals at cluster barriers).
#
#   cmake --build <build-dir> 2>&1 | tee build.log      # a clean build: ptxas -v output
#   scripts/check-ptxas-report.sh build.log <build-dir> [--incremental]
#
# A clean build must report every instance file the build dir generated ({wgmma,fallback}_*.cu
# of kernels/gemm, gemm_all_scatter_*.cu of kernels/ops): an instance missing from the log
# is a failure. --incremental (make test) checks only the instances the
# build recompiled; the others were built with -Xptxas=-Werror, so none of them spills
# or has its wgmma serialised (a kernel that did would not have been built).
#
# The report comes from -Xptxas=-v (kernels/gemm and kernels/ops CMakeLists.txt), the PTX
# from the symm_gemm_ptx and symm_ops_ptx targets. Every kernel's registers and spills go
# to <build.log>.kernels.tsv. SASS (HGMMA) needs cuobjdump on the GPU machine:
# scripts/gpu-gemm-check.sh checks it there.
set -euo pipefail
usage="usage: $0 BUILD_LOG BUILD_DIR [--incremental]"
log=${1:?$usage}
build=${2:?$usage}
mode=${3:-}
case "$mode" in "" | --incremental) ;; *) echo "$usage" >&2; exit 2 ;; esac
fail() { echo "check-ptxas-report: FAIL: $*" >&2; exit 1; }

# Every instance file the build dir generates (a project may build the GEMM alone).
mapfile -t instances < <(find "$build" -path '*/CMakeFiles' -prune -o -type f \
  \( -name 'wgmma_*.cu' -o -name 'fallback_*.cu' -o -name 'gemm_all_scatter_*.cu' \) -printf '%f\n' |
  sed 's/\.cu$//' | sort -u)
((${#instances[@]})) || fail "no generated kernel instances under $build (configure first)"

# One row per kernel ptxas compiled: instance, arch, registers, spill bytes, kernel, stack
# frame bytes. The ninja line that precedes a command's output names its object, hence
# the instance.
table=$log.kernels.tsv
awk '
  /Building CUDA object .*\.cu\.o$/ { inst = $NF; sub(/.*\//, "", inst); sub(/\.cu\.o$/, "", inst) }
  /Compiling entry function/ {
    kernel = $0; sub(/.*function .?/, "", kernel); sub(/.? for .*/, "", kernel)
    arch = $0; sub(/.* for .?/, "", arch); sub(/.?$/, "", arch); spill = 0; stack = 0
  }
  /bytes stack frame/ && !stack {
    stack = $0; sub(/ bytes stack frame.*/, "", stack); sub(/.* /, "", stack); stack += 0
  }
  /bytes spill stores/ {
    stores = $0; sub(/ bytes spill stores.*/, "", stores); sub(/.* /, "", stores)
    loads = $0; sub(/ bytes spill loads.*/, "", loads); sub(/.* /, "", loads)
    spill += stores + loads
  }
  /Used [0-9]+ registers/ {
    regs = $0; sub(/.*Used /, "", regs); sub(/ registers.*/, "", regs)
    print inst "\t" arch "\t" regs "\t" spill "\t" kernel "\t" stack
  }
' "$log" | sort -u >"$table"

reported=$(wc -l <"$table")
if [ "$reported" -eq 0 ] && [ "$mode" = --incremental ]; then
  echo "check-ptxas-report: no kernel recompiled by this build; nothing new to check"
  exit 0
fi
[ "$reported" -gt 0 ] || fail "no ptxas -v report in $log (needs a clean build of symm_gemm and symm_ops)"

# Spills anywhere (the kernel is named in the table), and wgmma serialised by ptxas.
problems=$(grep -E "bytes spill (stores|loads)" "$log" | grep -v " 0 bytes spill stores, 0 bytes spill loads" |
  sed 's/^/\nspills: /' || true)
problems+=$(grep -E "C7510|C7508|C7509|serialized" "$log" | sed 's/^/\nwgmma\/setmaxnreg: /' || true)
# A GEMM or fused kernel's stack frame is an array ptxas could not keep in registers
# (accumulators indexed by a loop it did not unroll): not a spill, and as slow.
problems+=$(awk -F'\t' '$1 ~ /^(wgmma|fallback|gemm_all_scatter)_/ && $6 > 0 {
  printf "\nlocal-memory stack frame: %d bytes in %s (%s)", $6, $5, $1 }' "$table")
checked=()
for inst in "${instances[@]}"; do
  # awk reads the whole table: with pipefail, `cut | grep -q` fails at random when grep
  # stops early and cut gets SIGPIPE (an instance then looked unreported).
  if ! awk -F'\t' -v inst="$inst" '$1 == inst { found = 1 } END { exit !found }' "$table"; then
    [ "$mode" = --incremental ] || problems+=$'\n'"no ptxas report for instance $inst"
    continue
  fi
  checked+=("$inst")
  grep -q "^$inst"$'\t'"sm_90a"$'\t' "$table" || problems+=$'\n'"instance $inst has no sm_90a kernel"
  case $inst in wgmma_* | gemm_all_scatter_*) ;; *) continue ;; esac
  ptx=$(find "$build" -path '*_ptx.dir/*' -name "$inst.ptx" | head -n 1)
  if [ -z "$ptx" ]; then
    problems+=$'\n'"no PTX of $inst under $build (build symm_gemm_ptx and symm_ops_ptx)"
    continue
  fi
  # Every GEMM kernel entry, not just the file, must use WGMMA, TMA and setmaxnreg.
  problems+=$(awk -v inst="$inst" '
    /^\.visible \.entry|^\.entry/ { entry = ($0 ~ /(persistent|fused)_gemm_kernel/) ? $3 : ""; if (entry != "") n[entry] = 0 }
    entry != "" && /wgmma\.mma_async/ { w[entry] = 1 }
    entry != "" && /setmaxnreg/ { s[entry] = 1 }
    entry != "" && /cp\.async\.bulk\.tensor/ { t[entry] = 1 }
    entry != "" && /barrier\.cluster\.arrive/ && !/\.relaxed/ { r[entry] = 1 }
    END {
      count = 0
      for (e in n) {
        count++
        if (!w[e]) printf "\n%s: %s has no wgmma.mma_async", inst, e
        if (!s[e]) printf "\n%s: %s has no setmaxnreg", inst, e
        if (!t[e]) printf "\n%s: %s has no TMA (cp.async.bulk.tensor)", inst, e
        if (r[e]) printf "\n%s: %s arrives at a cluster barrier with release semantics (0.6 us per launch: GemmSmem::sync_cluster)", inst, e
      }
      if (count == 0) printf "\n%s: its PTX has no GEMM kernel entry", inst
    }' "$ptx")
done
[ -z "$problems" ] || fail "$problems"

printf '%-28s %7s %s\n' instance kernels "registers (sm_90a, min-max)"
for inst in "${checked[@]}"; do
  awk -F'\t' -v inst="$inst" '$1 == inst && $2 == "sm_90a" { n++; r = $3 + 0; lo = (n == 1 || r < lo) ? r : lo; hi = r > hi ? r : hi }
    END { printf "%-28s %7d %d-%d\n", inst, n, lo, hi }' "$table"
done
echo "check-ptxas-report: OK: ${#checked[@]} of ${#instances[@]} instances, $reported kernels: no spills, no stack frames," \
  "no serialised wgmma; every WGMMA and fused kernel entry has wgmma.mma_async, setmaxnreg and TMA" \
  "and arrives relaxed at cluster barriers" \
  "(every kernel: $table)"
