# On the GPU machine: build probe.cu and run it (output.txt).
set -u
nvcc -std=c++17 -arch=sm_90 -o /tmp/pointer-probe bench/results/runtime/2026-12-05-pointer-kinds/probe.cu -lcuda &&
  timeout 60 /tmp/pointer-probe | tee "$OUT/output.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$OUT/gpu.txt"
