"""perf-check: passing, failing on a lowered figure, reporting a missing threshold,
refusing to compare shared-GPU figures with one-GPU-per-rank thresholds, re-baselining
(never from an invalid figure, never below 0 < fraction <= 1), symm-bench gemm files."""
import json
import os
import shutil
import tempfile
import unittest

import support
from symm_results import records, thresholds

SWEEP = os.path.join(support.FIXTURES, "sweep.jsonl")


class Check(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="perf-check-test-")
        self.thresholds = os.path.join(self.dir, "thresholds.json")
        # The fixture's failed and invalid points are for the FAIL tests: a clean copy first.
        self.clean = os.path.join(self.dir, "clean.jsonl")
        self.write(self.clean, lambda row: None if row.get("failed") or row.get("valid") is False else row, SWEEP)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write(self, path, change, source=None):
        """The clean fixture (or `source`) with `change` applied to each row (None drops it)."""
        with open(source or self.clean) as f, open(path, "w") as out:
            for line in f:
                doc = json.loads(line)
                if "rows" in doc:
                    doc["rows"] = [r for r in (change(dict(row)) for row in doc["rows"]) if r is not None]
                out.write(json.dumps(doc) + "\n")

    def tool(self, *args):
        return support.run_tool("perf-check", *args, "--thresholds", self.thresholds, cwd=self.dir)

    def baseline(self, *files):
        code, text = self.tool("baseline", *files)
        self.assertEqual(code, 0, text)

    def test_passes_on_the_figures_it_was_set_from(self):
        self.baseline(self.clean)
        code, text = self.tool("check", self.clean)
        self.assertEqual(code, 0, text)
        self.assertIn("perf-check: 8 passed, 0 failed, 0 without a threshold", text)
        code, text = self.tool("check")  # no files: the thresholds' own sources
        self.assertEqual(code, 0, text)

    def test_fails_on_a_lowered_figure_naming_configuration_threshold_and_value(self):
        self.baseline(self.clean)
        lowered = os.path.join(self.dir, "lowered.jsonl")

        def slower(row):
            if row.get("variant") == "tma_push" and row.get("world") == 1 and row.get("BLK_M") == 128:
                row["tflops"] *= 0.7
            return row
        self.write(lowered, slower)
        code, text = self.tool("check", lowered)
        self.assertEqual(code, 1, text)
        fail = [line for line in text.splitlines() if line.startswith("FAIL")]
        self.assertEqual(len(fail), 1, text)
        self.assertIn("tma_push 4096x4608x8192 bf16 B=kn 128x128x64s3", fail[0])
        self.assertIn("528.0 TFLOP/s < threshold 603.4 (80% of 754.2", fail[0])

    def test_invalid_and_failed_points_fail(self):
        self.baseline(self.clean)
        code, text = self.tool("check", SWEEP)
        self.assertEqual(code, 1, text)
        self.assertIn("bulk_synchronous", text)
        self.assertIn("validation failed", text)
        self.assertIn("the point failed: the ranks ended with exit code 134", text)

    def test_a_missing_threshold_is_reported_not_passed(self):
        self.baseline(self.clean)
        other = os.path.join(self.dir, "other.jsonl")
        self.write(other, lambda row: dict(row, k=16384))
        code, text = self.tool("check", other)
        self.assertEqual(code, 0, text)
        self.assertIn("0 passed, 0 failed, 8 without a threshold", text)
        self.assertIn("NO THRESHOLD", text)
        code, text = self.tool("check", other, "--strict")
        self.assertEqual(code, 1, text)

    def test_shared_gpu_figures_meet_no_one_gpu_per_rank_threshold(self):
        dedicated = os.path.join(self.dir, "dedicated.jsonl")
        self.write(dedicated, lambda row: dict(row, gpus=row["world"], ranks_share_gpus=False))
        self.baseline(dedicated)
        shared = [r for r in records.records_of(self.clean) if r.shared and r.ours]
        self.assertTrue(shared)
        results = thresholds.check(shared, thresholds.load(self.thresholds))
        self.assertTrue(all(status == "NONE" for status, _ in results), results)
        self.assertIn("only a threshold set with ranks on their own GPUs exists", results[0][1])

    def test_rebaseline_takes_the_latest_run_and_keeps_other_entries(self):
        self.baseline(self.clean)
        later = os.path.join(self.dir, "later.jsonl")
        self.write(later, lambda row: dict(row, tflops=row["tflops"] * 2) if row.get("tflops") else row)
        with open(later) as f:
            docs = [json.loads(line) for line in f]
        points = [d for d in docs if d.get("point", "").startswith("1r")]  # a later run of 1 rank only
        for doc in points:
            doc["run"]["timestamp"] = "2026-12-02T00:00:00Z"
        with open(later, "w") as f:
            f.writelines(json.dumps(d) + "\n" for d in [docs[0]] + points)
        self.baseline(self.clean, later)
        entries = thresholds.load(self.thresholds)["entries"]
        self.assertEqual(len(entries), 8)
        one_rank = [e for e in entries if e["world"] == 1]
        two_ranks = [e for e in entries if e["world"] == 2]
        self.assertTrue(all(e["source"].endswith("later.jsonl") for e in one_rank))
        self.assertTrue(all(e["source"].endswith("clean.jsonl") for e in two_ranks))

    def test_a_threshold_is_never_set_from_an_invalid_figure(self):
        self.baseline(SWEEP)  # bulk_synchronous failed validation there
        entries = thresholds.load(self.thresholds)["entries"]
        self.assertEqual(len(entries), 8)
        self.assertNotIn("bulk_synchronous", {e["variant"] for e in entries})

    def test_fraction_outside_zero_to_one_is_refused(self):
        for fraction in ("0", "1.5"):
            code, text = self.tool("baseline", self.clean, "--fraction", fraction)
            self.assertEqual(code, 2, text)
            self.assertIn("give a value in (0, 1]", text)
        self.assertFalse(os.path.exists(self.thresholds))

    def gemm_bench(self, ours):
        """A symm-bench gemm result file with `ours` as our contender's entry."""
        path = os.path.join(self.dir, "gemm.json")
        cublaslt = {"median_ms": 0.02, "tflops": 100.0, "valid": True}
        row = {"m": 1024, "n": 1024, "k": 1024, "dtype": "bf16", "layout": "nk",
               "impls": {"ours": ours, "ours_100sms": dict(cublaslt), "cublaslt": cublaslt}}
        doc = {"schema": "symm.results/1", "rows": [row],
               "run": {"gpu_name": "NVIDIA H200", "git_commit": "abc", "timestamp": "2026-12-01T00:00:00Z"}}
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def test_symm_bench_gemm_checks_ours_not_cublaslt(self):
        code, text = self.tool("check", self.gemm_bench({"median_ms": 0.02, "tflops": 110.0, "valid": True}))
        self.assertEqual(code, 0, text)
        self.assertIn("0 passed, 0 failed, 2 without a threshold", text)
        self.assertNotIn("cublaslt", text)

    def test_an_untimed_invalid_figure_fails(self):
        # symm-bench gemm does not time a contender whose output is wrong: no TFLOP/s.
        code, text = self.tool("check", self.gemm_bench({"valid": False, "not_timed": "wrong output"}))
        self.assertEqual(code, 1, text)
        self.assertIn("symm-bench gemm ours 1024x1024x1024 bf16", text)
        self.assertIn("validation failed", text)


class CommittedThresholds(unittest.TestCase):
    def test_committed_thresholds_are_well_formed(self):
        doc = thresholds.load(os.path.join(support.ROOT, "bench", "thresholds.json"))
        self.assertTrue(doc["entries"])
        for e in doc["entries"]:
            self.assertAlmostEqual(e["min_tflops"], round(e["fraction"] * e["measured_tflops"], 1), delta=0.11)
            self.assertTrue(os.path.exists(os.path.join(support.ROOT, e["source"])), e["source"])


if __name__ == "__main__":
    unittest.main()
