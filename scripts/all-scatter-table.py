#!/usr/bin/env python3
"""Markdown table of GEMM + all-scatter result files (the programs' JSON): one row per
shape, one column per contender, each cell total_ms and, in brackets, its ratio to
gemm_alone (1.00 = communication fully hidden). Tables in docs/ are made with this, never
typed by hand.

    scripts/all-scatter-table.py bench/results/all-scatter/2026-12-01-run2-proxy-*.json
"""
import json
import sys


def main(paths):
    rows, contenders = [], []
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        timed = [r for r in doc["rows"] if r.get("total_ms")]
        alone = next((r["total_ms"] for r in timed if r["variant"] == "gemm_alone"), None)
        first = timed[0]
        shape = f'{first["m"]} x {first["n"]} x {first["k"]} {first["dtype"]}'
        cells = {}
        for r in timed:
            if r["variant"] not in contenders:
                contenders.append(r["variant"])
            ratio = f' ({r["total_ms"] / alone:.2f})' if alone else ""
            mark = "" if r.get("valid") in (True, None) else " INVALID"
            cells[r["variant"]] = f'{r["total_ms"]:.3f}{ratio}{mark}'
        run = doc["run"]
        rows.append((shape, f'{first["world"]}r/{first["gpus"]}g', cells, run["git_commit"][:7]))
    print("| M x N x K dtype | ranks/GPUs | " + " | ".join(contenders) + " | commit |")
    print("| --- | --- | " + " | ".join("---" for _ in contenders) + " | --- |")
    for shape, ranks, cells, commit in rows:
        print(f"| {shape} | {ranks} | " + " | ".join(cells.get(c, "-") for c in contenders) + f" | {commit} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
