"""The roofline arithmetic and the ceilings it is drawn against (bench/ceilings.json)."""
import json

BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}


def flops(m, n, k):
    return 2.0 * m * n * k


def arithmetic_intensity(m, n, k, dtype):
    """Flops per byte of A, B and C moved once: 2MNK / ((MK + KN + MN) x element size)."""
    return flops(m, n, k) / ((m * k + k * n + m * n) * BYTES[dtype])


def efficiency(tflops, peak_tflops):
    """Achieved over peak, in percent."""
    return 100.0 * tflops / peak_tflops


class Ceilings:
    """Per GPU kind: compute peaks per dtype, HBM and NVLink bandwidths, each with a
    datasheet value and, where measured, a measured one (value, source, date)."""

    def __init__(self, path, which="datasheet"):
        with open(path) as f:
            self.doc = json.load(f)
        if which not in ("datasheet", "measured"):
            raise SystemExit(f"--peak {which}: give datasheet or measured")
        self.path, self.which = path, which

    def entry(self, gpu, name):
        """The ceiling `name` ("compute_tflops.bf16", "hbm_gbps", "nvlink_gbps") of `gpu` from
        the chosen source, as {"value", "source", "date", ...}; None when not known."""
        node = self.doc.get("gpus", {}).get(gpu)
        for part in name.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            return None
        chosen = node.get(self.which)
        return chosen if chosen and chosen.get("value") is not None else None

    def value(self, gpu, name):
        e = self.entry(gpu, name)
        return e["value"] if e else None

    def peak_tflops(self, gpu, dtype, gpus=1):
        """Aggregate compute peak of `gpus` GPUs (ranks sharing a GPU share its peak)."""
        v = self.value(gpu, f"compute_tflops.{dtype}")
        return v * gpus if v is not None else None
