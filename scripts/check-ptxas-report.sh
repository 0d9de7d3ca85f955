#!/usr/bin/env bash
# Fails when the GEMM kernels spill registers, have their wgmmas serialised by ptxas, or
# lose their setmaxnreg, or when the PTX lacks wgmma.mma_async.
#
#   cmake --build <build-dir> 2>&1 | tee build.log      # a clean build: ptxas -v output
#   scripts/check-ptxas-report.sh build.log <build-dir> [--incremental]
#
# --incremental (make test): a build that recompiled no kernel has no report to check;
# the kernels it kept were built with -Xptxas=-Werror, so none of them spills or has its
# wgmma serialised (a kernel that did would not have been built).
#
# The ptxas report comes from -Xptxas=-v (kernels/gemm/CMakeLists.txt); the PTX from the
# symm_gemm_ptx target. SASS (HGMMA) needs cuobjdump on the GPU machine:
# scripts/gpu-gemm-check.sh checks it there.
set -euo pipefail
usage="usage: $0 BUILD_LOG BUILD_DIR [--incremental]"
log=${1:?$usage}
build=${2:?$usage}
case "${3:-}" in "" | --incremental) ;; *) echo "$usage" >&2; exit 2 ;; esac
fail() { echo "check-ptxas-report: FAIL: $*" >&2; exit 1; }

reports=$(grep -c "ptxas info    : Used" "$log" || true)
if [ "$reports" -eq 0 ] && [ "${3:-}" = --incremental ]; then
  echo "check-ptxas-report: no kernel recompiled by this build; nothing new to check"
  exit 0
fi
[ "$reports" -gt 0 ] || fail "no ptxas -v report in $log (needs a clean build of symm_gemm)"

# Name each offending line with the kernel ptxas was compiling.
bad=$(awk '
  /Compiling entry function/ { fn = $0; sub(/.*function .?/, "", fn); sub(/.? for .*/, "", fn) }
  /bytes spill (stores|loads)/ && !/ 0 bytes spill stores, 0 bytes spill loads/ { print "spills: " fn ": " $0 }
  /C7510|C7508|C7509|serialized/ { print "wgmma/setmaxnreg: " $0 }
' "$log")
[ -z "$bad" ] || fail "$(printf '\n%s' "$bad")"

ptx=$(find "$build" -name 'wgmma_*.ptx' | head -n 1)
[ -n "$ptx" ] || fail "no wgmma_*.ptx under $build (build the symm_gemm_ptx target)"
grep -q "wgmma.mma_async.sync.aligned" "$ptx" || fail "$ptx has no wgmma.mma_async"
grep -q "setmaxnreg" "$ptx" || fail "$ptx has no setmaxnreg"
grep -q "cp.async.bulk.tensor" "$ptx" || fail "$ptx has no TMA (cp.async.bulk.tensor)"
echo "check-ptxas-report: OK: $reports kernels reported, no spills, no serialised wgmma; $ptx has wgmma.mma_async, setmaxnreg and TMA"
