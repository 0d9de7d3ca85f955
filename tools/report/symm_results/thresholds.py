"""Performance-regression thresholds (bench/thresholds.json) and the check against them.

A threshold belongs to one program and variant, one configuration (sizes, dtype, B
layout, tile, gsize_m, loopback peers), one GPU kind, one rank count and GPU count, and
whether the ranks shared GPUs: a figure is only ever compared with one measured the same
way. Each holds min_tflops = fraction x the measured TFLOP/s (Iris's policy: 80 %, to
catch big regressions rather than noise) and where that figure came from.
"""
import json
import os

SCHEMA = "symm.thresholds/1"
KEY_FIELDS = ("program", "variant", "m", "n", "k", "dtype", "b_layout", "tile", "gsize_m", "loopback_peers",
              "gpu", "world", "gpus", "shared")


def key_of(record):
    return tuple(getattr(record, f) for f in KEY_FIELDS)


def key_text(key):
    f = dict(zip(KEY_FIELDS, key))
    setup = f'{f["world"]}r/{f["gpus"]}g' + (" shared" if f["shared"] else "")
    loopback = f' loopback {f["loopback_peers"]}' if f["loopback_peers"] else ""
    return (f'{f["program"]} {f["variant"]} {f["m"]}x{f["n"]}x{f["k"]} {f["dtype"]} B={f["b_layout"]} '
            f'{f["tile"] or "plan"} gsize_m={f["gsize_m"]}{loopback} on {f["gpu"]} {setup}')


def load(path):
    if not os.path.exists(path):
        return {"schema": SCHEMA, "entries": []}
    with open(path) as f:
        doc = json.load(f)
    if doc.get("schema") != SCHEMA:
        raise SystemExit(f"{path}: not a thresholds file (schema {SCHEMA})")
    return doc


def entries_by_key(doc):
    return {tuple(e[f] for f in KEY_FIELDS): e for e in doc["entries"]}


def checked(records):
    """The records a check looks at: ours (not the baselines) that were timed or failed
    validation, and every point that failed."""
    return [r for r in records if r.failed or (r.ours and (r.tflops is not None or r.valid is False))]


def _same_but_sharing(a, b):
    """Keys of the same configuration and rank count, one with ranks sharing GPUs and the
    other not (their GPU counts differ with it)."""
    fa, fb = dict(zip(KEY_FIELDS, a)), dict(zip(KEY_FIELDS, b))
    return fa["shared"] != fb["shared"] and all(fa[f] == fb[f] for f in KEY_FIELDS if f not in ("gpus", "shared"))


def check(records, doc):
    """(status, line) per checked record: PASS, FAIL (below its threshold, invalid, or
    failed), NONE (no threshold; a shared-GPU figure is never compared with a threshold
    set on one GPU per rank, nor the other way round)."""
    by_key = entries_by_key(doc)
    results = []
    for r in checked(records):
        if r.failed:
            results.append(("FAIL", f"FAIL  {r.program} {r.m}x{r.n}x{r.k} {r.dtype} on {r.world} ranks "
                                    f"[{r.source}]: the point failed: {r.failed}"))
            continue
        key = key_of(r)
        where = f"{key_text(key)} [{r.source}]"
        if r.valid is False:
            results.append(("FAIL", f"FAIL  {where}: validation failed"))
            continue
        entry = by_key.get(key)
        if entry is None:
            other_sharing = any(_same_but_sharing(key, k) for k in by_key)
            why = ("only a threshold set with ranks " + ("on their own GPUs" if r.shared else "sharing a GPU")
                   + " exists, and such figures are not comparable") if other_sharing else "none set"
            results.append(("NONE", f"NO THRESHOLD  {where}: {why}; {r.tflops:.1f} TFLOP/s measured"))
            continue
        limit = entry["min_tflops"]
        verdict = "PASS" if r.tflops >= limit else "FAIL"
        relation = ">=" if verdict == "PASS" else "<"
        origin = f'{entry["fraction"]:.0%} of {entry["measured_tflops"]:.1f}, {entry["source"]}, {entry["date"][:10]}'
        results.append((verdict, f"{verdict}  {where}: {r.tflops:.1f} TFLOP/s {relation} threshold {limit:.1f} ({origin})"))
    return results


def rebaseline(records, doc, fraction):
    """Thresholds from `records` (the latest run of each configuration wins), replacing
    entries of the same configuration and keeping the others. Returns (doc, set, kept)."""
    latest = {}
    for r in checked(records):
        if r.tflops is None or r.valid is False or r.failed:
            continue
        key = key_of(r)
        if key not in latest or r.date >= latest[key].date:
            latest[key] = r
    by_key = entries_by_key(doc)
    kept = len(set(by_key) - set(latest))
    for key, r in latest.items():
        by_key[key] = dict(zip(KEY_FIELDS, key), min_tflops=round(fraction * r.tflops, 1),
                           measured_tflops=round(r.tflops, 1), fraction=fraction,
                           source=r.source.split("#")[0], commit=r.commit[:10], date=r.date)
    entries = [by_key[k] for k in sorted(by_key, key=lambda k: tuple(str(x) for x in k))]
    new = {"schema": SCHEMA,
           "policy": "min_tflops = fraction x the measured TFLOP/s of the same program, variant, configuration, "
                     "GPU kind, rank and GPU count and GPU sharing (tools/report/perf-check baseline)",
           "entries": entries}
    return new, len(latest), kept


def dumps(doc):
    """JSON with one entry per line: readable, and a re-baseline diffs line by line."""
    head = {k: v for k, v in doc.items() if k != "entries"}
    lines = [json.dumps(e) for e in doc["entries"]]
    return json.dumps(head, indent=1)[:-2] + ',\n "entries": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n"


def sources(doc):
    """The result files the thresholds were set from."""
    return sorted({e["source"] for e in doc["entries"]})
