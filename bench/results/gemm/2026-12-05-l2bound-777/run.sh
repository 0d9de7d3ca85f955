# One device call: kernel durations and L2 traffic under ncu (ours and cuBLASLt's candidates,
# bf16) on 777 x 4104 x 8200, then timed probes of the plans and the new 160x192 1 x 4 tile,
# then that tile's GPU tests and the cluster tests.
set -u
d=bench/results/gemm/2026-12-05-l2bound-777
cat $d/probes.txt $d/probes-ragged.txt >/tmp/all-probes.txt
SYMM_GIT_COMMIT=$1 PROBES=/tmp/all-probes.txt GPU_TESTS=0 scripts/gpu-gemm-check.sh probes
timeout 60 build/carry/symm_gemm_gpu_test --gtest_filter='*160x192x64s4c1x4*:GemmCluster*' >"$OUT/new-config-tests.log" 2>&1
tail -3 "$OUT/new-config-tests.log"
SYMM_GIT_COMMIT=$1 PROBES=$d/probes.txt scripts/gpu-gemm-check.sh durations
