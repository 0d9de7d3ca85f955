"""The report's plots, drawn with matplotlib (the distribution's python3-matplotlib,
installed by scripts/install-deps.sh), each written as PNG and SVG."""
import sys

from .records import ALL_SCATTER_VARIANTS
from .roofline import arithmetic_intensity
from .tables import timed

MARKERS = dict(zip(ALL_SCATTER_VARIANTS + ("gemm_alone",), "o^sDvP"))  # filled: hollow = shared GPU
ROOF_STYLE = {"datasheet": "-", "measured": "--"}


def pyplot():
    try:
        import matplotlib
    except ImportError:
        other = sys.executable != "/usr/bin/python3"
        hint = " (/usr/bin/python3 may have it: run the script with that)" if other else ""
        raise SystemExit(f"symm-report: matplotlib is missing for {sys.executable}; install python3-matplotlib "
                         f"(scripts/install-deps.sh){hint}, or pass --no-plots")
    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt
    return plt


def _save(fig, stem):
    written = []
    for ext in ("png", "svg"):
        fig.savefig(f"{stem}.{ext}", dpi=120)
        written.append(f"{stem}.{ext}")
    return written


def _roofs(ax, ceilings, gpu, dtype, ai_range):
    """The compute roof and the HBM and NVLink roofs, min(peak, AI x bandwidth), per GPU."""
    lo, hi = ai_range
    xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    which = ceilings.which
    peak = ceilings.value(gpu, f"compute_tflops.{dtype}")
    if peak is None:
        return
    ax.plot(xs, [peak] * len(xs), ROOF_STYLE[which], color="black", label=f"{dtype} peak {peak:.0f} ({which})")
    for name, label, color in (("hbm_gbps", "HBM", "tab:red"), ("nvlink_gbps", "NVLink", "tab:purple")):
        bw = ceilings.value(gpu, name)
        if bw is not None:
            ax.plot(xs, [min(peak, x * bw / 1000) for x in xs], ROOF_STYLE[which], color=color,
                    label=f"{label} {bw:.0f} GB/s ({which})")


def roofline(records, ceilings, stem):
    """Achieved TFLOP/s per GPU against arithmetic intensity, log-log: one marker per
    variant, one colour per rank count; hollow markers: ranks shared a GPU."""
    plt = pyplot()
    points = [r for r in timed(records) if r.variant in MARKERS]
    fig, ax = plt.subplots(figsize=(9, 6))
    worlds = sorted({r.world for r in points})
    colors = {w: plt.cm.viridis(i / max(1, len(worlds) - 1)) for i, w in enumerate(worlds)}
    seen = set()
    for r in points:
        label = f"{r.variant}, {r.world} rank{'s' if r.world > 1 else ''}{' (shared GPU)' if r.shared else ''}"
        ax.scatter(arithmetic_intensity(r.m, r.n, r.k, r.dtype), r.tflops / r.gpus, marker=MARKERS[r.variant],
                   s=40, edgecolors=colors[r.world], facecolors="none" if r.shared else colors[r.world],
                   label=None if label in seen else label)
        seen.add(label)
    if points:
        ais = [arithmetic_intensity(r.m, r.n, r.k, r.dtype) for r in points]
        drawn = set()
        for gpu, dtype in sorted({(r.gpu, r.dtype) for r in points}):
            peak = ceilings.value(gpu, f"compute_tflops.{dtype}")
            if (gpu, peak) not in drawn:  # bf16 and fp16 share the H200's roofs
                drawn.add((gpu, peak))
                _roofs(ax, ceilings, gpu, dtype, (min(10.0, min(ais) / 2), max(ais) * 4))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity 2MNK / ((MK + KN + MN) x bytes)  [flop/byte]")
    ax.set_ylabel("achieved TFLOP/s per GPU")
    ax.set_title("GEMM + all-scatter against the roofline")
    ax.grid(True, which="both", alpha=0.3)
    if points:
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    written = _save(fig, stem)
    plt.close(fig)
    return written


def speedup(records, stem):
    """Per shape and rank setup, each variant's best speedup over the baseline measured in
    the same run (cuBLASLt + NCCL; hatched where NCCL could not run and the copy-engine
    baseline stood in)."""
    plt = pyplot()
    best = {}
    for r in timed(records):
        if r.variant in ALL_SCATTER_VARIANTS and r.speedup is not None and r.valid is not False:
            key = (f"{r.m}x{r.n}x{r.k} {r.dtype}\n{r.world}r/{r.gpus}g{' shared' if r.shared else ''}", r.variant)
            if key not in best or r.speedup > best[key].speedup:
                best[key] = r
    shapes = sorted({k[0] for k in best})
    variants = [v for v in ALL_SCATTER_VARIANTS if any(k[1] == v for k in best)]
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(shapes) + 3), 5))
    width = 0.8 / max(1, len(variants))
    for i, v in enumerate(variants):
        bars = [(j, best[(shape, v)]) for j, shape in enumerate(shapes) if (shape, v) in best]
        for n, (j, r) in enumerate(bars):
            ax.bar(j + i * width, r.speedup, width, color=plt.cm.tab10(i), label=v if n == 0 else None,
                   hatch="//" if r.baseline != "cublaslt+nccl" else None)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks([j + width * (len(variants) - 1) / 2 for j in range(len(shapes))], shapes, fontsize=7)
    ax.set_ylabel("speedup over cuBLASLt + NCCL (hatched: + copy engine)")
    ax.set_title("speedup over the baseline of the same run (best tile, valid only)")
    if variants:
        ax.legend(fontsize=7)
    fig.tight_layout()
    written = _save(fig, stem)
    plt.close(fig)
    return written

