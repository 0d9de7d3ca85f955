# One device call after run-fix.sh on the same machine (build/dev kept): each wait-record
# mutation applied in turn, its test binary rebuilt and its death test run three times
# (caught: it fails), then the mutation reverted.
set -u
export SYMM_REQUIRE_GPU=1
for m in gemm:symm_gemm_gpu_test:tests_gpu_gemm:GemmWaitRecord ops:symm_gemm_all_scatter_test:tests_gpu_ops:GemmAllScatterWaitRecord; do
  IFS=: read -r area target dir suite <<<"$m"
  patch=tests/mutations/gpu-$area-wait-record-trapped-before-written.patch
  patch -p1 <"$patch" >/dev/null || { echo "$patch does not apply"; continue; }
  if timeout 240 cmake --build build/dev -j 16 --target "$target" >"$OUT/mut-$area-build.log" 2>&1; then
    timeout 60 "build/dev/$dir/$target" --gtest_filter="$suite.WaitersTimingOutTogetherLeaveOneWholeRecord" \
      --gtest_repeat=3 >"$OUT/mut-$area.log" 2>&1
    rc=$?
    echo "mutation $area: rc=$rc ($([ $rc -ne 0 ] && echo caught || echo SURVIVED)); $(grep -c '^\[  FAILED  \] .*Record (' "$OUT/mut-$area.log") of 3 runs failed"
  else
    echo "mutation $area: build failed"; tail -5 "$OUT/mut-$area-build.log"
  fi
  patch -R -p1 <"$patch" >/dev/null
done
