#!/usr/bin/env bash
# Device call: why wg_specialization's comm blocks are slow on short K: comm block scaling
# and a traced run.
set -u
commit=${1:?commit}
o=/tmp/exp; mkdir -p $o
export SYMM_GIT_COMMIT=$commit SYMM_REQUIRE_GPU=1 SYMM_GEMM_PLAN_CACHE=off
start=$SECONDS
timeout 300 bash -c "cmake --preset release > $o/cfg.log 2>&1 && cmake --build --preset release -j 16 --target 10_gemm_all_scatter_wg_specialization > $o/build.log 2>&1"
echo "build rc=$? $((SECONDS - start)) s"
e=build/release/examples/10_gemm_all_scatter_wg_specialization/10_gemm_all_scatter_wg_specialization
run() { timeout 60 $e -r 1 --loopback_peers 1 --no_baselines -b --n_repeat 20 --n_warmup 5 "$@" > $o/run.log 2>&1; echo "rc=$? $*"; grep -E "total_ms|ms" $o/run.log | grep -vE "^\s*$" | tail -4; }
S="-m 2000 -n 4000 -k 3000"
for g in 128 120 96 64; do run $S --variant wg_specialization,tma_push --gemm_sms $g -o $o/g$g.json; done
run $S --variant producer_consumer --comm_sms 32 -o $o/pc32.json
run -m 2000 -n 4000 -k 3000 --variant wg_specialization -t -o $o/trace.json
ls $o
tar czf $OUT/r.tgz -C /tmp exp
