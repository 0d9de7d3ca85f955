"""plan-replay with the built symm-bench (no GPU): the plans of every preset problem, the moved
ones against an earlier listing, the probes it writes for them, and the GPU it plans for.
SYMM_BENCH names the binary (CMake sets it)."""
import importlib.machinery
import importlib.util
import io
import json
import os
import re
import shutil
import tarfile
import tempfile
import unittest

import support

SYMM_BENCH = os.environ.get("SYMM_BENCH", "")


class PlanReplay(unittest.TestCase):
    def setUp(self):
        self.assertTrue(os.access(SYMM_BENCH, os.X_OK), f"SYMM_BENCH={SYMM_BENCH!r} is not the built symm-bench")
        self.dir = tempfile.mkdtemp(prefix="plan-replay-test-")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def path(self, name):
        return os.path.join(self.dir, name)

    def replay(self, out, *extra):
        code, text = support.run_tool("plan-replay", SYMM_BENCH, self.path(out), *extra, cwd=self.dir)
        self.assertEqual(code, 0, text)
        with open(self.path(out)) as f:
            return json.load(f), text

    def test_lists_every_preset_problem_and_nothing_moves_against_itself(self):
        plans, _ = self.replay("h200.json", "--plans-for", "h200")
        # general, issue4 and ragged, both dtypes, B both ways
        self.assertGreater(len(plans), 300)
        self.assertTrue(all(key.split()[0] in ("general", "issue4", "ragged") for key in plans))
        self.assertNotIn("?", plans.values())
        _, text = self.replay("again.json", self.path("h200.json"), "--plans-for", "h200")
        self.assertIn(f"0 of {len(plans)} plans moved", text)

    def test_a_moved_plan_is_listed_with_its_old_and_new_configuration_as_probes(self):
        plans, _ = self.replay("now.json")
        key = "general bf16 nk 1000x1000x1000"
        self.assertIn(key, plans)
        before = dict(plans, **{key: "128x128x64s6/k2"})
        with open(self.path("before.json"), "w") as f:
            json.dump(before, f)
        _, text = self.replay("after.json", self.path("before.json"), "--probes", self.path("probes.txt"))
        self.assertIn(f"{key}: 128x128x64s6/k2 -> {plans[key]}", text)
        self.assertIn(f"1 of {len(plans)} plans moved", text)
        with open(self.path("probes.txt")) as f:
            probes = f.read().splitlines()
        new = plans[key].partition("/k")
        self.assertEqual(probes, [f"# {key}: 128x128x64s6/k2 -> {plans[key]}",
                                  "1000 1000 1000 bf16 nk 128x128x64s6 SYMM_GEMM_SPLITS=2",
                                  "1000 1000 1000 bf16 nk " + new[0] + (f" SYMM_GEMM_SPLITS={new[2]}" if new[2] else "")])

    def test_the_h100s_slower_memory_moves_plans_of_straddling_rows(self):
        self.replay("h200.json", "--plans-for", "h200")
        h100, text = self.replay("h100.json", self.path("h200.json"), "--plans-for", "h100")
        self.assertEqual(h100["general bf16 nk 12296x2792x1000"], "152x256x64s4c2-swapped")
        moved = re.search(r"^(\d+) of (\d+) plans moved$", text, re.MULTILINE)
        self.assertIsNotNone(moved, text)
        self.assertGreater(int(moved.group(1)), 0, text)

    def test_agreement_counts_the_tuned_runs_whose_pick_is_the_plan(self):
        plans, _ = self.replay("now.json", "--plans-for", "h200")
        with open(self.path("before.json"), "w") as f:
            json.dump({key: "none" for key in plans}, f)
        _, text = self.replay("after.json", self.path("before.json"), "--plans-for", "h200")
        # Every plan moved, so every tuned run on record is listed under its problem.
        picked, key = 0, None
        for line in text.splitlines():
            if line.endswith("plans moved"):
                break
            if not line.startswith("    "):
                key = line.split(":")[0]
            elif "H200" in line.split(":")[0]:
                picked += re.search(r", tuned (\S+?)(?:,|$)", line).group(1) == plans[key]
        found = re.search(r"the plan is the tuner's pick in (\d+) of the (\d+) tuned runs on H200s on record"
                          r" \(before: (\d+)\)", text)
        self.assertIsNotNone(found, text)
        agree, total, before = (int(g) for g in found.groups())
        self.assertEqual((agree, before), (picked, 0))
        self.assertGreater(total, agree)  # some tuned runs picked another plan
        self.assertGreater(agree, 0)

    def test_misses_are_the_tuned_runs_that_beat_todays_plan_largest_first(self):
        plans, text = self.replay("h100.json", "--plans-for", "h100", "--misses", "3")
        head = re.search(r"^tuned runs on H100s on record whose pick beat the plan by 3 % or more: (\d+)$", text,
                         re.MULTILINE)
        self.assertIsNotNone(head, text)
        listed = re.findall(r"^  (.+?): (\S+) -> (\S+), ([\d.]+) % faster \(", text, re.MULTILINE)
        self.assertEqual(len(listed), int(head.group(1)))
        self.assertGreater(len(listed), 0, text)  # the H100's tuned runs of 2026-12-05 found some
        margins = [float(m) for *_, m in listed]
        self.assertEqual(margins, sorted(margins, reverse=True))
        self.assertGreaterEqual(min(margins), 3)
        for key, plan, pick, _ in listed:
            self.assertEqual(plans[key], plan)
            self.assertNotEqual(pick, plan)
        _, text = self.replay("h100-all.json", "--plans-for", "h100", "--misses", "0")
        every = int(re.search(r"or more: (\d+)$", text, re.MULTILINE).group(1))
        self.assertGreater(every, len(listed))
        # Runs that recorded no margin (the H200's of 2026-12-03) are not listed as misses of 0 %.
        _, text = self.replay("h200-all.json", "--plans-for", "h200", "--misses", "0")
        self.assertNotIn(" 0 % faster", text)

    def test_probes_need_an_earlier_listing(self):
        code, text = support.run_tool("plan-replay", SYMM_BENCH, self.path("out.json"), "--probes",
                                      self.path("probes.txt"), cwd=self.dir)
        self.assertEqual(code, 2, text)
        self.assertIn("give BEFORE.json", text)

    def test_a_day_not_spelled_as_the_folders_spell_it_or_a_negative_margin_is_refused(self):
        for extra, said in ((("--since", "5.12.2026"), "YYYY-MM-DD"), (("--misses", "-1"), "0 or more")):
            code, text = support.run_tool("plan-replay", SYMM_BENCH, self.path("out.json"), *extra, cwd=self.dir)
            self.assertEqual(code, 2, text)
            self.assertIn(said, text)

    def test_misses_without_an_h100_or_h200_planned_for_is_refused(self):
        fake = self.path("symm-bench")  # plans for a GPU whose tuned runs are not on record
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'symm-bench gemm --plans: planned for GPU 0 (NVIDIA A100-SXM4-80GB)'\n"
                    "echo '  plan: M=64 N=64 K=64 128x128x64s6-pingpong splits 1'\n")
        os.chmod(fake, 0o755)
        code, text = support.run_tool("plan-replay", fake, self.path("out.json"), "--misses", "3", cwd=self.dir)
        self.assertEqual(code, 2, text)
        self.assertIn("pass --plans-for h100 or h200", text)


def plan_replay_module():
    loader = importlib.machinery.SourceFileLoader("plan_replay", os.path.join(support.TOOLS, "plan-replay"))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("plan_replay", loader))
    loader.exec_module(module)
    return module


def tgz(members):
    """A gzipped tar archive in memory of (name, bytes) pairs."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as t:
        for name, content in members:
            info = tarfile.TarInfo(name)
            info.size = len(content)
            t.addfile(info, io.BytesIO(content))
    return data.getvalue()


class PresetResults(unittest.TestCase):
    def test_tuned_preset_runs_are_read_from_archives_inside_archives(self):
        run = json.dumps({"rows": []}).encode()
        inner = tgz([("general-bf16-kn.json", run), ("general-bf16-kn-untuned.json", run),
                     ("probe-1.json", run)])
        outer = tgz([("call/presets.tgz", inner), ("call/issue4-bf16-nk.json", run), ("call/call.txt", b"x")])
        found = plan_replay_module().preset_results(tarfile.open(fileobj=io.BytesIO(outer)))
        self.assertEqual(sorted(found), [("general", "bf16", "kn", {"rows": []}), ("issue4", "bf16", "nk", {"rows": []})])


if __name__ == "__main__":
    unittest.main()
