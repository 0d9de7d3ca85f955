"""ncu-durations: our kernels named by configuration, the benchmark's own kernels left out
unless asked for, medians and minima from a real ncu CSV (fixtures/ncu-1000x1000x64.csv:
symm-bench on 1000 x 1000 x 64 with 2 x 1 pairs of 64x128 forced, three of cuBLASLt's
64x128 launches and one 40x256, a fill and an output check), refusals."""
import importlib.machinery
import importlib.util
import os
import tempfile
import unittest

import support

FIXTURE = os.path.join(support.FIXTURES, "ncu-1000x1000x64.csv")


def load_tool():
    path = os.path.join(support.TOOLS, "ncu-durations")
    loader = importlib.machinery.SourceFileLoader("ncu_durations", path)
    spec = importlib.util.spec_from_loader("ncu_durations", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


class NcuDurations(unittest.TestCase):
    tool = load_tool()

    def test_our_kernels_are_named_as_symm_bench_spells_their_configuration(self):
        name = self.tool.kernel_label
        self.assertEqual(name("void gemm::persistent_gemm_kernel<gemm::TileConfig<64, 128, 64, 8, 1, 2, 1>, "
                              "__nv_bfloat16, __nv_bfloat16, 1, gemm::NoEpilogueHook>(gemm::WgmmaParams, T5)"),
                         "64x128x64s8c2-pingpong bf16")
        self.assertEqual(name("void symm::gemm::persistent_gemm_kernel<symm::gemm::TileConfig<200, 128, 64, 4, "
                              "(symm::gemm::Schedule)2, 2, 1>, __half, float, 0, symm::gemm::NoEpilogueHook>(...)"),
                         "200x128x64s4c2-swapped fp16")
        self.assertEqual(name("void gemm::persistent_gemm_kernel<gemm::TileConfig<128, 256, 64, 4, 0, 2, 2>, "
                              "__nv_bfloat16, __nv_bfloat16, 0, gemm::NoEpilogueHook>(gemm::WgmmaParams, T5)"),
                         "128x256x64s4c2x2 bf16")
        self.assertEqual(name("void ops::fused_gemm_kernel<gemm::TileConfig<128, 192, 64, 4, 0, 1, 1>, __half, "
                              "__half, 1, ops::TmaPushHook>(gemm::WgmmaParams, T5, ops::PushWork, int)"),
                         "fused 128x192x64s4 fp16")
        self.assertEqual(name("nvjet_sm90_tst_64x128_64x8_2x1_v_bz_TNN"), "nvjet_sm90_tst_64x128_64x8_2x1_v_bz_TNN")

    def test_groups_are_timed_fastest_first_without_the_benchmarks_own_kernels(self):
        rows = self.tool.summarize([FIXTURE])
        self.assertEqual([r[0] for r in rows], ["nvjet_sm90_tst_64x128_64x8_2x1_v_bz_TNN",
                                                "nvjet_sm90_tst_40x256_64x5_4x2_h_bz_TNN",
                                                "64x128x64s8c2-pingpong bf16"])
        label, launches, median, fastest, other = rows[2]
        self.assertEqual(launches, 3)
        self.assertAlmostEqual(median, 5.696)  # of 5,696 / 5,792 / 5,664 ns
        self.assertAlmostEqual(fastest, 5.664)
        self.assertEqual(other["launch__grid_size"], 128)

    def test_all_keeps_the_fills_and_checks(self):
        labels = [r[0] for r in self.tool.summarize([FIXTURE], keep_harness=True)]
        self.assertEqual(len(labels), 5)
        self.assertTrue(any("fill_kernel" in label for label in labels), labels)
        self.assertTrue(any("count_wrong" in label for label in labels), labels)

    def test_a_file_without_ncu_csv_is_refused_naming_it(self):
        code, out = support.run_tool("ncu-durations", os.path.join(support.FIXTURES, "report.md"))
        self.assertNotEqual(code, 0)
        self.assertIn("report.md has no ncu CSV table", out)

    def test_the_command_prints_one_line_per_kernel(self):
        code, out = support.run_tool("ncu-durations", FIXTURE)
        self.assertEqual(code, 0, out)
        lines = out.strip().splitlines()
        self.assertEqual(len(lines), 3, out)
        self.assertTrue(lines[-1].startswith("64x128x64s8c2-pingpong bf16"), out)
        self.assertIn("median     5.70 us", lines[-1])

    def test_durations_in_any_unit_are_read_in_us(self):
        # ncu picks the unit by magnitude: one kernel's launches may come in several.
        csv_text = ('"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'
                    '"0","slow","gpu__time_duration.sum","usecond","5.50"\n'
                    '"1","slow","gpu__time_duration.sum","nsecond","6,500"\n'
                    '"2","slower","gpu__time_duration.sum","msecond","0.02"\n')
        with tempfile.NamedTemporaryFile("w", suffix=".csv") as f:
            f.write(csv_text)
            f.flush()
            rows = self.tool.summarize([f.name])
        self.assertEqual([(r[0], r[1]) for r in rows], [("slow", 2), ("slower", 1)])
        self.assertAlmostEqual(rows[0][2], 6.0)  # median of 5.5 and 6.5 us
        self.assertAlmostEqual(rows[0][3], 5.5)
        self.assertAlmostEqual(rows[1][2], 20.0)


if __name__ == "__main__":
    unittest.main()
