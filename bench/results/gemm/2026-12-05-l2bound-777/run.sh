# One device call: ncu's full set of ours and cuBLASLt's on 777 x 4104 x 8200 (fp16; the
# profile step's dtype), then kernel durations and L2 traffic (bf16) and timed probes.
set -u
d=bench/results/gemm/2026-12-05-l2bound-777
SYMM_GIT_COMMIT=$1 PROFILE_JOBS="mid-ours:777 4104 8200:persistent:1:144x192x64s4c2-swapped:;mid-cublas:777 4104 8200:nvjet|sm90:6:144x192x64s4c2-swapped:" \
  scripts/gpu-gemm-check.sh profile
SYMM_GIT_COMMIT=$1 PROBES=$d/probes.txt scripts/gpu-gemm-check.sh durations
cat $d/probes.txt $d/probes-ragged.txt >/tmp/all-probes.txt
SYMM_GIT_COMMIT=$1 PROBES=/tmp/all-probes.txt GPU_TESTS=0 scripts/gpu-gemm-check.sh probes
SYMM_GIT_COMMIT=$1 timeout 60 build/carry/symm_gemm_gpu_test --gtest_filter='*160x192x64s4c1x4*:GemmCluster*' >"$OUT/new-config-tests.log" 2>&1
tail -3 "$OUT/new-config-tests.log"
