"""The roofline arithmetic, the ceilings file, and the peak and efficiency the report's
tables take from it."""
import dataclasses
import json
import os
import unittest

import support  # noqa: F401  (puts tools/report on the path)
from symm_results import records, tables
from symm_results.roofline import Ceilings, arithmetic_intensity, efficiency, flops


class Formulas(unittest.TestCase):
    def test_intensity_counts_a_b_and_c_once(self):
        # 2 * 8192 * 4608 * 36864 flops over (8192*36864 + 36864*4608 + 8192*4608) * 2 bytes
        self.assertAlmostEqual(arithmetic_intensity(8192, 4608, 36864, "bf16"), 2730.67, places=2)
        self.assertAlmostEqual(arithmetic_intensity(1024, 1024, 1024, "fp16"), 1024 / 3, places=6)
        self.assertAlmostEqual(arithmetic_intensity(1024, 1024, 1024, "fp32"), 1024 / 6, places=6)

    def test_efficiency_is_percent_of_peak(self):
        self.assertEqual(flops(2, 3, 4), 48)
        self.assertAlmostEqual(efficiency(494.5, 989), 50.0)


class CeilingsFile(unittest.TestCase):
    def test_datasheet_and_measured_values(self):
        datasheet = Ceilings(support.CEILINGS, "datasheet")
        self.assertEqual(datasheet.peak_tflops("NVIDIA H200", "bf16"), 989)
        self.assertEqual(datasheet.peak_tflops("NVIDIA H200", "bf16", gpus=2), 1978)  # aggregate
        self.assertEqual(datasheet.value("NVIDIA H200", "nvlink_gbps"), 450)
        measured = Ceilings(support.CEILINGS, "measured")
        self.assertLess(measured.peak_tflops("NVIDIA H200", "fp16"), 989)
        self.assertIsNone(measured.peak_tflops("NVIDIA B200", "bf16"))  # not known: no peak, no guess
        with self.assertRaises(SystemExit):
            Ceilings(support.CEILINGS, "guessed")

    def test_every_entry_names_its_source_and_date(self):
        with open(support.CEILINGS) as f:
            doc = json.load(f)
        for gpu, ceilings in doc["gpus"].items():
            entries = [ceilings["hbm_gbps"], ceilings["nvlink_gbps"], *ceilings["compute_tflops"].values()]
            for entry in entries:
                for which in ("datasheet", "measured"):
                    e = entry[which]
                    self.assertTrue(e["source"] and e["date"] and "value" in e, f"{gpu} {which}: {e}")

    def test_measured_values_are_those_of_their_result_files(self):
        """The measured ceilings must be what the committed result files they cite say."""
        measured = json.load(open(support.CEILINGS))["gpus"]["NVIDIA H200"]

        def rows(entry):
            with open(os.path.join(support.ROOT, entry["measured"]["source"])) as f:
                return json.load(f)["rows"]

        for dtype, entry in measured["compute_tflops"].items():
            best = max(r["impls"]["cublaslt"]["tflops"] for r in rows(entry) if r.get("dtype") == dtype)
            self.assertAlmostEqual(entry["measured"]["value"], best, places=1)

        def copy_engine(entry, target):
            return max(r["value"] for r in rows(entry) if r.get("variant") == "copy_engine"
                       and r["initiator"] == "0" and r["target"] == target)

        self.assertAlmostEqual(measured["hbm_gbps"]["measured"]["value"],
                               2 * copy_engine(measured["hbm_gbps"], "0"), places=1)  # read + write
        self.assertAlmostEqual(measured["nvlink_gbps"]["measured"]["value"],
                               copy_engine(measured["nvlink_gbps"], "1"), places=1)


class TablePeaks(unittest.TestCase):
    """A timed record of the fixture sweep (bf16, one GPU) changed in one respect."""
    record = next(r for r in records.records_of(os.path.join(support.FIXTURES, "sweep.jsonl")) if r.tflops)

    def peak_and_efficiency(self, which, **change):
        raw = tables.figures(dataclasses.replace(self.record, **change), Ceilings(support.CEILINGS, which))[0]
        return raw[tables.COLUMNS.index("peak TFLOP/s")], raw[tables.COLUMNS.index("efficiency %")]

    def test_peak_counts_every_gpu_the_ranks_ran_on(self):
        peak, eff = self.peak_and_efficiency("datasheet", world=2, gpus=2, tflops=989.0)
        self.assertEqual(peak, 1978)
        self.assertAlmostEqual(eff, 50.0)

    def test_peak_is_that_of_the_records_dtype(self):
        measured = Ceilings(support.CEILINGS, "measured")
        bf16, fp16 = (measured.value("NVIDIA H200", f"compute_tflops.{d}") for d in ("bf16", "fp16"))
        self.assertNotEqual(bf16, fp16)  # else this test tells nothing
        self.assertEqual(self.peak_and_efficiency("measured", dtype="fp16")[0], fp16)


if __name__ == "__main__":
    unittest.main()
