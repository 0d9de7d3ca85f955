"""gemm-table: symm-bench gemm's results per shape, cuBLASLt's configuration beside ours,
the geomeans and the problems whose paired ratio is below the floor; bad usage exits 2."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

TOOL = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tools", "report", "gemm-table")


def row(m, ratio, paired, ours_valid=True, k_splits=3, whole_tiles=120):
    ours = {"config": "128x256x64s4", "k_splits": k_splits, "whole_tiles": whole_tiles, "stream_k": False, "tflops": 700.0,
            "spread": 0.01, "valid": ours_valid}
    lt = {"config": "128x72x64s4c4x2-k2", "tflops": 650.0, "spread": 0.02, "valid": True}
    return {"m": m, "n": 1024, "k": 4096, "world": 1, "dtype": "bf16", "impls": {"ours": ours, "cublaslt": lt},
            "ratio_ours_over_cublaslt": ratio, "ratio_paired": paired}


class GemmTable(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, rows, name="gemm.json"):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            json.dump({"schema": "symm.results/1", "run": {}, "rows": rows + [{"summary": True}]}, f)
        return path

    def tool(self, *args):
        done = subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr

    def test_each_shape_names_both_configurations_and_the_floor(self):
        code, text = self.tool(self.write([row(1000, 1.25, 1.21), row(2000, 0.80, 0.81)]))
        self.assertEqual(code, 0, text)
        self.assertIn("| 1000 | 1024 | 4096 | 1 | bf16 | 128x256x64s4 | t3 | 128x72x64s4c4x2-k2 | 700.0 | 650.0 "
                      "| 1.250 | 1.210 | 0.010 / 0.020 | right |", text)
        self.assertIn(f"geomean {(1.25 * 0.80) ** 0.5:.3f} (paired {(1.21 * 0.81) ** 0.5:.3f}), min 0.800 "
                      "(paired 0.810) over 2 of 2 problems", text)
        self.assertIn("paired below 0.92: 2000 x 1024 x 4096 bf16 (0.810)", text)
        code, text = self.tool(self.write([row(1000, 1.25, 1.21), row(2000, 0.80, 0.81)]), "--below", "0.8")
        self.assertIn("paired below 0.8: none", text)

    def test_the_k_cut_reads_as_symm_bench_prints_it(self):
        code, text = self.tool(self.write([row(1000, 1.0, 1.0, k_splits=1, whole_tiles=120),
                                           row(2000, 1.0, 1.0, k_splits=2, whole_tiles=0)]))
        self.assertEqual(code, 0, text)
        self.assertIn("| 1000 | 1024 | 4096 | 1 | bf16 | 128x256x64s4 | t1 |", text)
        self.assertIn("| 2000 | 1024 | 4096 | 1 | bf16 | 128x256x64s4 | 2 |", text)

    def test_a_wrong_output_has_no_ratio_and_says_so(self):
        code, text = self.tool(self.write([row(1000, None, None, ours_valid=False), row(2000, 0.95, 0.96)]))
        self.assertEqual(code, 0, text)
        self.assertIn("| - | - |", text)
        self.assertIn("| WRONG: ours |", text)
        self.assertIn("over 1 of 2 problems", text)

    def test_problems_too_large_for_the_gpu_are_listed_with_the_reason(self):
        skipped = {"m": 300000, "n": 300000, "k": 64, "world": 1, "dtype": "bf16", "skipped": "needs about 503 GiB"}
        code, text = self.tool(self.write([row(1000, 1.0, 1.0), skipped]))
        self.assertEqual(code, 0, text)
        self.assertIn("over 1 of 1 problems", text)
        self.assertIn("not measured: 300000 x 300000 x 64 bf16 (needs about 503 GiB)", text)

    def test_untuned_plans_are_compared_with_tuned_ones_through_cublaslt(self):
        tuned = self.write([row(1000, 1.10, 1.00), row(2000, 1.00, 1.00), row(3000, 1.0, 0.5)], "general.json")
        untuned = self.write([row(1000, 0.9, 0.95), row(2000, 1.0, 0.80)], "general-untuned.json")
        code, text = self.tool(tuned, untuned)
        self.assertEqual(code, 0, text)
        self.assertIn(f"## untuned over tuned: {untuned} / {tuned}", text)
        self.assertIn(f"geomean {(0.95 * 0.80) ** 0.5:.3f}, min 0.800 over 2 problems; lowest: "
                      "2000 x 1024 x 4096 bf16 (0.800); 1000 x 1024 x 4096 bf16 (0.950)", text)
        code, text = self.tool(untuned)  # no tuned file beside it: no comparison
        self.assertEqual(code, 0, text)
        self.assertNotIn("untuned over tuned", text)

    def test_bad_usage_exits_2(self):
        self.assertEqual(self.tool()[0], 2)
        self.assertEqual(self.tool("--below")[0], 2)
        code, text = self.tool(os.path.join(self.dir.name, "missing.json"))
        self.assertEqual(code, 2, text)
        self.assertIn("not a symm-bench gemm result file", text)
        code, text = self.tool(self.write([]))  # a results file of another program
        self.assertEqual(code, 2, text)
        self.assertIn("has no problem rows", text)


if __name__ == "__main__":
    unittest.main()
