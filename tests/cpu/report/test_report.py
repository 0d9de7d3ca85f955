"""symm-report on a fixture sweep: the golden Markdown report, the CSV, the plots (PNG and
valid SVG), the contender matrix, the index of a results folder, the best-variant choice,
usage errors, and reading sweeps (resumed points, lines cut off)."""
import csv
import dataclasses
import json
import os
import shutil
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

import support
from symm_results import records, tables

CEILINGS = os.path.relpath(support.CEILINGS, support.FIXTURES)
SWEEP = os.path.join(support.FIXTURES, "sweep.jsonl")


class Report(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="symm-report-test-")

    def tearDown(self):
        shutil.rmtree(self.out)

    def report(self, *extra):
        code, text = support.run_tool("symm-report", "sweep.jsonl", "--ceilings", CEILINGS,
                                      "--out", self.out, *extra)
        self.assertEqual(code, 0, text)

    def test_markdown_matches_the_golden_report(self):
        self.report("--no-plots")
        with open(os.path.join(self.out, "report.md")) as f:
            got = f.read()
        with open(os.path.join(support.FIXTURES, "report.md")) as f:
            self.assertEqual(got, f.read(), "regenerate tests/cpu/report/fixtures/report.md only after "
                                            "checking the difference by eye")

    def test_csv_holds_every_timed_contender(self):
        self.report("--no-plots")
        with open(os.path.join(self.out, "report.csv")) as f:
            rows = list(csv.DictReader(f))
        timed = [r for r in records.records_of(os.path.join(support.FIXTURES, "sweep.jsonl")) if r.tflops]
        self.assertEqual(len(rows), len(timed))
        self.assertEqual(rows[0]["variant"], "tma_push")
        self.assertAlmostEqual(float(rows[0]["efficiency %"]), 100 * float(rows[0]["TFLOP/s"]) / 989, places=6)

    def test_plots_are_written_as_png_and_valid_svg(self):
        self.report()
        for stem in ("roofline", "speedup"):
            png, svg = (os.path.join(self.out, f"{stem}.{ext}") for ext in ("png", "svg"))
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", png)
            self.assertGreater(os.path.getsize(png), 10_000, png)
            root = ElementTree.parse(svg).getroot()
            self.assertEqual(root.tag, "{http://www.w3.org/2000/svg}svg", svg)
            self.assertGreater(len(list(root.iter())), 100, f"{svg} draws next to nothing")

    def test_matrix_alone_needs_no_output_folder(self):
        code, text = support.run_tool("symm-report", "sweep.jsonl", "--matrix")
        self.assertEqual(code, 0, text)
        self.assertIn("| 4096 x 4608 x 8192 bf16 | 2r/1g shared | 0.950 (1.06) |", text)
        self.assertIn("0.990 (1.10) INVALID", text)

    def test_index_has_a_line_per_result_file(self):
        folder = os.path.join(self.out, "results")
        os.makedirs(os.path.join(folder, "sweeps"))
        shutil.copy(os.path.join(support.FIXTURES, "sweep.jsonl"), os.path.join(folder, "sweeps"))
        shutil.copy(os.path.join(support.ROOT, "bench", "results", "gemm", "2026-11-30-run7-gemm.json"), folder)
        code, text = support.run_tool("symm-report", "--index", folder)
        self.assertEqual(code, 0, text)
        with open(os.path.join(folder, "INDEX.md")) as f:
            lines = [line for line in f if line.startswith("| ") and not line.startswith(("| file", "| ---"))]
        self.assertEqual(len(lines), 2)
        self.assertIn("ours / cuBLASLt geomean", lines[0])
        self.assertIn("| sweeps/sweep.jsonl | `10_gemm_all_scatter_wg_specialization --preset", lines[1])
        self.assertIn("0123456789 | NVIDIA H200 | 580.159.04 | 2026-12-01 | 5 points; best tma_push 754.2",
                      lines[1])


    def test_gemm_contenders_carry_their_own_validity(self):
        # symm-bench checks each contender on its own: cuBLASLt failed on this problem.
        path = os.path.join(support.ROOT, "bench", "results", "gemm", "2026-12-01-final-6dd7e88",
                            "general-bf16-nk-untuned.json")
        odd = [r for r in records.records_of(path) if (r.m, r.n, r.k) == (2048, 32001, 4096)]
        self.assertEqual({r.variant: r.valid for r in odd}, {"ours": True, "cublaslt": False})

    def test_a_gemm_problem_too_large_for_the_gpu_is_reported_not_measured(self):
        path = os.path.join(self.out, "gemm.json")
        with open(path, "w") as f:
            json.dump({"schema": "symm.results/1", "run": {"gpu_name": "NVIDIA H200"}, "rows": [
                {"m": 300000, "n": 300000, "k": 64, "world": 1, "dtype": "bf16", "layout": "nk",
                 "skipped": "needs about 503 GiB of GPU memory"}, {"summary": True}]}, f)
        recs = records.records_of(path)
        self.assertEqual(len(recs), 1)
        self.assertFalse(recs[0].ours)
        self.assertEqual(tables.not_measured(recs),
                         "- skipped: 300000x300000x64 bf16, 1 rank, the whole point: needs about 503 GiB of GPU memory")

    def test_bad_usage_exits_2(self):
        for args in ([], ["sweep.jsonl"]):  # nothing to do; files but neither --out nor --matrix
            code, text = support.run_tool("symm-report", *args)
            self.assertEqual(code, 2, text)
            self.assertIn("give result files and --out DIR", text)

    def test_best_variant_is_never_an_invalid_one(self):
        recs = records.records_of(SWEEP)
        # Make the invalid bulk_synchronous of the 2-rank point the fastest there.
        recs = [dataclasses.replace(r, tflops=900.0) if r.valid is False else r for r in recs]
        best = {r.world: r.variant for r in tables.best_variants(recs)}
        self.assertEqual(best, {1: "tma_push", 2: "tma_push"})


class Sweeps(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="symm-sweep-test-")
        self.path = os.path.join(self.dir, "resumed.jsonl")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write(self, lines):
        with open(self.path, "w") as f:
            f.write("\n".join(lines) + "\n")

    def test_a_resumed_point_keeps_its_last_document(self):
        with open(SWEEP) as f:
            lines = f.read().splitlines()
        point = next(json.loads(line) for line in lines if json.loads(line).get("point", "").startswith("1r"))
        for row in point["rows"]:
            if row.get("tflops"):
                row["tflops"] += 1000
        self.write(lines + [json.dumps(point)])  # the point run again after the sweep resumed
        got = [r.tflops for r in records.records_of(self.path) if r.world == 1 and r.tflops]
        self.assertEqual(len(got), 7)
        self.assertTrue(all(t > 1000 for t in got), got)

    def test_a_line_cut_off_is_refused_naming_it(self):
        with open(SWEEP) as f:
            lines = f.read().splitlines()
        self.write(lines[:2] + [lines[2][:100]])  # the first point, cut off mid-line
        with self.assertRaises(SystemExit) as refused:
            records.records_of(self.path)
        self.assertIn("line 3 is not JSON", str(refused.exception))


if __name__ == "__main__":
    unittest.main()
