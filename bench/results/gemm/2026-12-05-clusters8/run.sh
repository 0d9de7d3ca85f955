# On one H200 (the device's $OUT saved in R; results under /tmp/g8, tarred back):
R=$OUT; export OUT=/tmp/g8
SYMM_GIT_COMMIT=59b0c67 GPU_TESTS=0 PROBES=bench/results/gemm/2026-12-05-clusters8/probes.txt \
  timeout 400 scripts/gpu-gemm-check.sh probes --no-tune > $OUT/run.log 2>&1
SYMM_REQUIRE_GPU=1 timeout 90 $OUT/bin/symm_gemm_gpu_test --gtest_filter='*c4x2*:*c2x4*:*c1x4*:GemmCluster.*' > $OUT/tests.log 2>&1
