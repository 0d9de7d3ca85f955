#!/usr/bin/env bash
# Where the 64x144 ping-pong quads (4 x 1 clusters) spend their K iterations, against our
# single 64x128 blocks and cuBLASLt's own 64x144 kernel in 4 x 1 clusters: ncu's full set
# (warp-state sampling included) on 1000 x 1000 x 1024 fp16, B as N x K, then per kernel the
# sampled stall reasons (raw page) and the SASS with its samples (source page).
#   bash bench/results/gemm/2026-12-06-quad-stalls/run.sh   (OUT set; SYMM_GIT_COMMIT for the build)
set -u
cd "$(dirname "$0")/../../../.."
export PROFILE_JOBS="quad-ours:1000 1000 1024:persistent:1:64x144x64s7c4-pingpong:;\
single-ours:1000 1000 1024:persistent:1:64x128x64s8-pingpong:;\
quad-cublas:1000 1000 1024:nvjet_sm90_hsh_64x144_64x8_4x1:1:64x144x64s7c4-pingpong:"
scripts/gpu-gemm-check.sh profile
cd "$OUT" && tar xzf profile.tgz && rm profile.tgz || exit 1
for rep in profile/*.ncu-rep; do
  name=${rep%.ncu-rep}
  ncu -i "$rep" --page raw --csv >"$name.raw.csv" 2>&1
  ncu -i "$rep" --page source --csv --print-source sass >"$name.sass.csv" 2>&1
  echo "== $name: stall samples"
  python3 - "$name.raw.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = [r for r in rows if r and r[0] == "ID"][0]
vals = [r for r in rows if r and r[0] not in ("ID", "")][-1]
for h, v in zip(head, vals):
    if "pcsamp_warps_issue_stalled" in h and not h.endswith("not_issued"):
        try:
            if float(v.replace(",", "")) > 0: print(f"{h:80s} {v}")
        except ValueError: pass
PY
done
tar czf profile.tgz profile && rm -rf profile
