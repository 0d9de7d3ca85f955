#!/usr/bin/env python3
"""Which of the presets' untuned plans a change to the cost model moves, beside what the
tuned preset runs recorded for those problems (the tuner's pick and the heuristic's of its day).

  replay.py SYMM_BENCH OUT.json [BEFORE.json]

Plans every problem of bench/gemm/{general,issue4,ragged}.json, both dtypes, B both ways,
with `SYMM_BENCH gemm --plans` (no GPU needed: an H100's/H200's limits) into OUT.json; with
BEFORE.json (the same, from the build before the change) prints each plan that moved and,
under it, every tuned run of that problem in the results folders below.
"""
import glob, json, os, re, subprocess, sys, tarfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), *[".."] * 4))
RUNS = ["2026-12-03-presets-" + c for c in ("3760e88", "5ed14f2", "6c47447", "6f6f5e7", "828da9f")] + \
       ["2026-12-05-presets-9649a41-h100"]


def config(plan):
    m = re.search(r"(?:wgmma|fallback) (\S+) k_splits=(\d+)", plan)
    return m.group(1) + ("" if m.group(2) == "1" else "/k" + m.group(2)) if m else "?"


def plans(symm_bench):
    out = {}
    for preset in ("general", "issue4", "ragged"):
        for dtype in ("bf16", "fp16"):
            for layout in ("nk", "kn"):
                text = subprocess.run([symm_bench, "gemm", "--preset", f"{ROOT}/bench/gemm/{preset}.json", "--dtype", dtype,
                                       "--layout", layout, "--plans"], capture_output=True, text=True, check=True).stdout
                for line in text.splitlines():
                    if line.startswith("  plan:"):
                        m, n, k = re.search(r"M=(\d+) N=(\d+) K=(\d+)", line).groups()
                        out[f"{preset} {dtype} {layout} {m}x{n}x{k}"] = config(line)
    return out


def tuned_runs():
    seen = {}
    for run in RUNS:
        for archive in glob.glob(f"{ROOT}/bench/results/gemm/{run}/*.tgz"):
            with tarfile.open(archive) as t:
                for member in t.getmembers():
                    name = os.path.basename(member.name)
                    if not name.endswith(".json") or "untuned" in name:
                        continue
                    preset, dtype, layout = name[:-5].split("-")[:3]
                    results = json.load(t.extractfile(member))
                    gpu = results["run"].get("gpu_name", "?")
                    for row in results.get("rows", []):
                        ours = row.get("impls", {}).get("ours")
                        if not ours or "heuristic_plan" not in ours:
                            continue
                        margin = re.search(r"([\d.]+) % below", ours["plan"])
                        key = f"{preset} {dtype} {layout} {row['m']}x{row['n']}x{row['k']}"
                        seen.setdefault(key, set()).add(
                            f"{run} ({gpu}): heuristic {config(ours['heuristic_plan'])}, tuned {config(ours['plan'])}"
                            + (f", {margin.group(1)} % faster" if margin else ""))
    return seen


if __name__ == "__main__":
    after = plans(sys.argv[1])
    json.dump(after, open(sys.argv[2], "w"), indent=0, sort_keys=True)
    if len(sys.argv) > 3:
        before, runs, moved = json.load(open(sys.argv[3])), tuned_runs(), 0
        for key in sorted(after):
            if after[key] != before.get(key):
                moved += 1
                print(f"{key}: {before.get(key)} -> {after[key]}")
                for line in sorted(runs.get(key, [])):
                    print("    " + line)
        print(f"{moved} of {len(after)} plans moved")
