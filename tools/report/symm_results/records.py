"""Result files as flat records: one per measured contender (or per skipped or failed
part of a sweep, or symm-bench problem skipped), whatever program wrote them.

Read: the GEMM + all-scatter programs' JSON (symm.results/1, docs/gemm-all-scatter.md),
their sweeps' JSON lines (a header, then one results document per point; the last
document of a point wins), and `symm-bench gemm`'s JSON (one record per implementation).
Other results documents (the RMA examples) have no GEMM rows and give no records.
"""
import json
from dataclasses import dataclass
from typing import Optional

ALL_SCATTER_VARIANTS = ("tma_push", "wg_specialization", "fused_sequential", "producer_consumer",
                        "bulk_synchronous")
GEMM_ALONE = "gemm_alone"
GEMM_BENCH = "symm-bench gemm"


@dataclass
class Record:
    source: str              # the file, with "#point" for a sweep's point
    program: str
    variant: Optional[str]   # a variant, gemm_alone, a baseline, or a symm-bench implementation
    m: int
    n: int
    k: int
    dtype: str
    b_layout: str
    tile: Optional[str]      # "128x128x64s3": the configuration that ran
    gsize_m: Optional[int]
    world: int               # ranks
    gpus: int                # distinct GPUs among them
    shared: bool             # ranks shared GPUs: a correctness run, not speed
    loopback_peers: int
    gpu: str                 # GPU kind ("NVIDIA H200")
    commit: str
    date: str                # UTC timestamp of the run
    tflops: Optional[float] = None
    total_ms: Optional[float] = None
    gemm_alone_ms: Optional[float] = None
    speedup: Optional[float] = None      # over `baseline`, measured in the same run
    baseline: Optional[str] = None
    valid: Optional[bool] = None
    skipped: Optional[str] = None
    failed: Optional[str] = None

    @property
    def ours(self):
        """A symm contender (what thresholds guard), not a baseline."""
        return (self.variant in ALL_SCATTER_VARIANTS or self.variant == GEMM_ALONE
                or (self.program == GEMM_BENCH and (self.variant or "").startswith("ours")))


def read_documents(path):
    """The results documents of a file: one, or one per point of a sweep (JSON lines)."""
    with open(path) as f:
        text = f.read()
    if not path.endswith(".jsonl"):
        return [json.loads(text)]
    points = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
        except json.JSONDecodeError as e:
            raise SystemExit(f"{path} line {number} is not JSON ({e}); a sweep cut off mid-line "
                             "is repaired by resuming it")
        if "point" in doc:
            points[doc["point"]] = doc  # a later document of the same point replaces it
    return list(points.values())


def _tile(row):
    if row.get("BLK_M") is None:
        return None
    return f'{row["BLK_M"]}x{row["BLK_N"]}x{row["BLK_K"]}s{row["num_stages"]}'


def _all_scatter_record(row, run, source):
    total, ratio = row.get("total_ms"), row.get("ratio_vs_gemm_alone")
    return Record(
        source=source, program=row["program"], variant=row.get("variant"), m=row["m"], n=row["n"],
        k=row["k"], dtype=row["dtype"], b_layout=row.get("b_layout", "kn"), tile=_tile(row),
        gsize_m=row.get("gsize_m"), world=row["world"], gpus=row.get("gpus") or run.get("world", 1),
        shared=bool(row.get("ranks_share_gpus")), loopback_peers=row.get("loopback_peers") or 0,
        gpu=run.get("gpu_name") or "unknown", commit=run.get("git_commit", "unknown"),
        date=run.get("timestamp", ""), tflops=row.get("tflops"), total_ms=total,
        gemm_alone_ms=total / ratio if total and ratio else None,
        speedup=row.get("speedup_vs_baseline"), baseline=row.get("baseline"),
        valid=row.get("valid"), skipped=row.get("skipped"), failed=row.get("failed"))


def _gemm_bench_records(row, run, source):
    for name, impl in row["impls"].items():
        tile = impl.get("config") if name == "ours" else None
        yield Record(
            source=source, program=GEMM_BENCH, variant=name, m=row["m"], n=row["n"], k=row["k"],
            dtype=row["dtype"], b_layout=row.get("layout", "nk"), tile=tile, gsize_m=None, world=1,
            gpus=1, shared=False, loopback_peers=0, gpu=run.get("gpu_name") or "unknown",
            commit=run.get("git_commit", "unknown"), date=run.get("timestamp", ""),
            tflops=impl.get("tflops"), total_ms=impl.get("median_ms"),
            valid=impl.get("valid", row.get("valid")))  # each contender is checked on its own


def _gemm_bench_skip(row, run, source):
    return Record(
        source=source, program=GEMM_BENCH, variant=None, m=row["m"], n=row["n"], k=row["k"],
        dtype=row["dtype"], b_layout=row.get("layout", "nk"), tile=None, gsize_m=None, world=1, gpus=1,
        shared=False, loopback_peers=0, gpu=run.get("gpu_name") or "unknown",
        commit=run.get("git_commit", "unknown"), date=run.get("timestamp", ""), skipped=row["skipped"])


def records_of(path):
    """Every record of a result file, in file order."""
    out = []
    for doc in read_documents(path):
        source = f'{path}#{doc["point"]}' if "point" in doc else path
        run = doc.get("run", {})
        for row in doc.get("rows", []):
            if "program" in row and "m" in row:
                out.append(_all_scatter_record(row, run, source))
            elif "impls" in row:
                out.extend(_gemm_bench_records(row, run, source))
            elif "skipped" in row and "m" in row:  # a symm-bench problem too large for the GPU
                out.append(_gemm_bench_skip(row, run, source))
    return out


def load(paths):
    return [r for path in paths for r in records_of(path)]
