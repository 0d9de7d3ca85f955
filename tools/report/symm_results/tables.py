"""The report's tables, derived from records (never typed by hand): the roofline table
(Markdown and CSV), the best variant per size, the contender matrix, and what was
skipped or failed."""
import csv
import io

from .records import ALL_SCATTER_VARIANTS, GEMM_ALONE
from .roofline import arithmetic_intensity, efficiency

COLUMNS = ["M", "N", "K", "tile", "stages", "dtype", "ranks", "variant", "AI (flop/B)", "TFLOP/s",
           "total ms", "GEMM-alone ms", "peak TFLOP/s", "efficiency %", "speedup", "baseline", "valid"]
CSV_EXTRA = ["gpus", "ranks_share_gpus", "loopback_peers", "gpu", "commit", "date", "source"]


def ranks_text(r):
    """"2 (1 GPU, shared)": ranks and what they ran on."""
    gpus = f'{r.gpus} GPU{"" if r.gpus == 1 else "s"}'
    extra = ", shared" if r.shared else (f", {r.loopback_peers} loopback" if r.loopback_peers else "")
    return f"{r.world} ({gpus}{extra})"


def _fmt(value, spec):
    return "-" if value is None else format(value, spec)


def figures(r, ceilings):
    """The table's values of a timed record, raw (CSV) and as text (Markdown)."""
    tile, stages = (r.tile.split("s") + [None])[:2] if r.tile else (None, None)
    ai = arithmetic_intensity(r.m, r.n, r.k, r.dtype)
    peak = ceilings.peak_tflops(r.gpu, r.dtype, r.gpus)
    eff = efficiency(r.tflops, peak) if peak and r.tflops is not None else None
    raw = [r.m, r.n, r.k, tile, stages, r.dtype, r.world, r.variant, ai, r.tflops, r.total_ms,
           r.gemm_alone_ms, peak, eff, r.speedup, r.baseline, r.valid]
    text = [str(r.m), str(r.n), str(r.k), tile or "-", stages or "-", r.dtype, ranks_text(r),
            r.variant, f"{ai:.0f}", _fmt(r.tflops, ".1f"), _fmt(r.total_ms, ".3f"),
            _fmt(r.gemm_alone_ms, ".3f"), _fmt(peak, ".0f"), _fmt(eff, ".1f"),
            _fmt(r.speedup, ".2f"), r.baseline or "-",
            {True: "yes", False: "NO", None: "-"}[r.valid]]
    return raw, text


def timed(records):
    return [r for r in records if r.tflops is not None]


def shape_key(r):
    return (r.m, r.n, r.k, r.dtype, r.world, r.gpus, r.shared, r.loopback_peers, r.gpu)


def markdown(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def roofline_table(records, ceilings):
    return markdown(COLUMNS, [figures(r, ceilings)[1] for r in timed(records)])


def roofline_csv(records, ceilings):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS + CSV_EXTRA)
    for r in timed(records):
        writer.writerow(figures(r, ceilings)[0] + [r.gpus, r.shared, r.loopback_peers, r.gpu, r.commit,
                                                     r.date, r.source])
    return out.getvalue()


def best_variants(records):
    """Per size, dtype and rank setup: the fastest valid variant (any tile)."""
    best = {}
    for r in timed(records):
        if r.variant in ALL_SCATTER_VARIANTS and r.valid is not False:
            key = shape_key(r)
            if key not in best or r.tflops > best[key].tflops:
                best[key] = r
    return [best[k] for k in sorted(best, key=lambda k: k[:8])]


def best_table(records, ceilings):
    return markdown(COLUMNS, [figures(r, ceilings)[1] for r in best_variants(records)])


def contender_matrix(records):
    """One line per size and run; per contender its best total_ms and, in brackets, its
    ratio to gemm_alone of the same configuration (1.00: communication fully hidden)."""
    lines, contenders = {}, []
    for r in timed(records):
        key = shape_key(r) + (r.commit[:7],)
        if r.variant not in contenders:
            contenders.append(r.variant)
        cell = lines.setdefault(key, {}).get(r.variant)
        if cell is None or r.total_ms < cell.total_ms:
            lines[key][r.variant] = r
    order = [c for c in ALL_SCATTER_VARIANTS + (GEMM_ALONE,) if c in contenders]
    order += [c for c in contenders if c not in order]

    def cell(r):
        if r is None:
            return "-"
        ratio = f" ({r.total_ms / r.gemm_alone_ms:.2f})" if r.gemm_alone_ms else ""
        return f"{r.total_ms:.3f}{ratio}{' INVALID' if r.valid is False else ''}"

    rows = []
    for key, cells in lines.items():
        m, n, k, dtype, world, gpus, shared = key[:7]
        setup = f"{world}r/{gpus}g" + (" shared" if shared else "")
        rows.append([f"{m} x {n} x {k} {dtype}", setup] + [cell(cells.get(c)) for c in order] + [key[-1]])
    return markdown(["M x N x K dtype", "ranks/GPUs"] + order + ["commit"], rows)


def not_measured(records):
    """What was skipped or failed, one line each: where, what, why."""
    out = []
    for r in records:
        why = r.failed or r.skipped
        if why:
            what = " ".join(x for x in (r.variant, r.tile) if x) or "the whole point"
            status = "FAILED" if r.failed else "skipped"
            ranks = f"{r.world} rank{'' if r.world == 1 else 's'}"
            out.append(f"- {status}: {r.m}x{r.n}x{r.k} {r.dtype}, {ranks}, {what}: {why}")
    return "\n".join(out)
