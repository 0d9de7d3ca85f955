"""The GPU machine's scripts, checked without a GPU: each device call is scarce, so a
script that cannot start (no execute bit, a syntax error) or mislabels its runs must fail
here. The proxy's GPU program is replaced by a stub that writes result files; the A/B
table's mean and INVALID marks are checked on result files written by the test."""
import json
import os
import shutil
import stat
import subprocess
import tempfile
import textwrap
import time
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")

# Writes what the program writes with -o: one row per contender asked for and gemm_alone.
# A build's ratios are 1.10 ("aaa") or 1.05 (other commits), plus 0.01 per earlier launch of
# that build (so rounds differ); --fail_validation marks its rows invalid.
STUB = textwrap.dedent("""\
    #!/usr/bin/env python3
    import json, os, sys
    a = sys.argv
    value = lambda flag: a[a.index(flag) + 1]
    commit = os.environ.get("SYMM_GIT_COMMIT", "")
    counter = os.path.join(os.path.dirname(value("-o")), "launches-" + commit)
    count = int(open(counter).read()) if os.path.exists(counter) else 0
    open(counter, "w").write(str(count + 1))
    ratio = (1.10 if commit == "aaa" else 1.05) + 0.01 * count
    rows = [{"variant": v, "dtype": value("--datatype"), "m": int(value("-m")), "n": int(value("-n")),
             "k": int(value("-k")), "plan": "128x256x64s4 k_splits=1 gemm_sms=128 comm_sms=4", "total_ms": 1.0,
             "ratio_vs_gemm_alone": 1.0 if v == "gemm_alone" else round(ratio, 3),
             "valid": None if v == "gemm_alone" else "--fail_validation" not in a}
            for v in value("--variant").split(",") + ["gemm_alone"]]
    json.dump({"rows": rows}, open(value("-o"), "w"))
""")


class DeviceScripts(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.stub = os.path.join(self.tmp.name, "program")
        with open(self.stub, "w") as f:
            f.write(STUB)
        os.chmod(self.stub, os.stat(self.stub).st_mode | stat.S_IXUSR)
        self.out = os.path.join(self.tmp.name, "out")

    def tearDown(self):
        self.tmp.cleanup()

    def proxy(self, **env):
        """Runs gpu-proxy-figures.sh on one shape with the stub; returns (exit code, output)."""
        full = dict(os.environ, OUT=self.out, PROXY_SIZES="2000 8000 3000", PROXY_SETTINGS=";",
                    PROXY_VARIANTS="tma_push,wg_specialization")
        full.update(env)
        p = subprocess.run([os.path.join(SCRIPTS, "gpu-proxy-figures.sh")], env=full, capture_output=True,
                           text=True, timeout=60)
        return p.returncode, p.stdout + p.stderr

    def test_every_script_is_executable_and_parses(self):
        names = sorted(n for n in os.listdir(SCRIPTS) if n.endswith(".sh"))
        self.assertIn("gpu-ab.sh", names)
        for name in names:
            path = os.path.join(SCRIPTS, name)
            self.assertTrue(os.access(path, os.X_OK), f"{name} has no execute bit: a device call cannot run it")
            p = subprocess.run(["bash", "-n", path], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, f"{name}: {p.stderr}")
        for name in os.listdir(os.path.join(SCRIPTS, "lib")):  # sourced by the scripts
            p = subprocess.run(["bash", "-n", os.path.join(SCRIPTS, "lib", name)], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, f"lib/{name}: {p.stderr}")

    def test_rounds_alternate_the_builds_and_the_table_gives_mean_and_range(self):
        code, output = self.proxy(PROXY_BUILDS=f"base:aaa:{self.stub} new:bbb:{self.stub}", PROXY_ROUNDS="3")
        self.assertEqual(code, 0, output)
        with open(os.path.join(self.out, "proxy.log")) as f:
            order = [line.rsplit("build ", 1)[1].strip() for line in f if line.startswith("==")]
        self.assertEqual(order, ["base", "new", "new", "base", "base", "new"])
        files = sorted(n for n in os.listdir(self.out) if n.endswith(".json"))
        self.assertEqual(files, [f"proxy-bf16-2000x8000x3000-s0-{b}-r{r}.json" for b in ("base", "new")
                                 for r in range(3)])
        table = subprocess.run([os.path.join(ROOT, "tools", "report", "proxy-table"), "ab", self.out],
                               capture_output=True, text=True)
        self.assertEqual(table.returncode, 0, table.stderr)
        # Three launches per build: base 1.10, 1.11, 1.12; new 1.05, 1.06, 1.07.
        self.assertIn("| 2000x8000x3000 | s0 | tma_push | 1.110 (1.100-1.120) | 1.060 (1.050-1.070) |",
                      table.stdout)
        with open(os.path.join(self.out, "proxy.md")) as f:
            runs = f.read()
        self.assertIn("| bf16 | 2000 x 4000 x 3000 | plan | base r2 | wg_specialization | "
                      "128x256x64s4 k_splits=1 gemm_sms=128 comm_sms=4 | 1.0000 | 1.120 | True |", runs)

    def test_an_invalid_run_is_marked_in_the_ab_table(self):
        code, output = self.proxy(PROXY_BUILDS=f"base:aaa:{self.stub} new:bbb:{self.stub}",
                                  PROXY_SETTINGS="--fail_validation")
        self.assertEqual(code, 0, output)
        table = subprocess.run([os.path.join(ROOT, "tools", "report", "proxy-table"), "ab", self.out],
                               capture_output=True, text=True)
        self.assertEqual(table.returncode, 0, table.stderr)
        self.assertIn("| 1.050 INVALID |", table.stdout)

    def test_bad_rounds_and_missing_programs_are_refused(self):
        code, output = self.proxy(PROXY_PROGRAM=self.stub, PROXY_ROUNDS="0")
        self.assertEqual(code, 2)
        self.assertIn("PROXY_ROUNDS must be a positive count", output)
        code, output = self.proxy(PROXY_PROGRAM=os.path.join(self.tmp.name, "absent"))
        self.assertEqual(code, 2)
        self.assertIn("build it first", output)
        # gpu-ab.sh refuses bad rounds before it builds anything.
        p = subprocess.run([os.path.join(SCRIPTS, "gpu-ab.sh"), "base", "new"], env=dict(os.environ, AB_ROUNDS="0"),
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2)
        self.assertIn("AB_ROUNDS must be a positive count", p.stderr)
        for args in (["ab"], ["nonsense", self.out], ["ab", os.path.join(self.tmp.name, "absent")]):
            p = subprocess.run([os.path.join(ROOT, "tools", "report", "proxy-table"), *args], capture_output=True,
                               text=True)
            self.assertEqual(p.returncode, 2, args)

    def ab(self, ratios):
        """proxy-table ab over result files written here: {(build, round): (ratio, valid)}."""
        for (build, round_), (ratio, valid) in ratios.items():
            rows = [{"variant": "tma_push", "ratio_vs_gemm_alone": ratio, "valid": valid},
                    {"variant": "gemm_alone", "ratio_vs_gemm_alone": 1.0, "valid": None}]
            with open(os.path.join(self.tmp.name, f"proxy-bf16-2000x8000x3000-s0-{build}-r{round_}.json"), "w") as f:
                json.dump({"rows": rows}, f)
        table = subprocess.run([os.path.join(ROOT, "tools", "report", "proxy-table"), "ab", self.tmp.name],
                               capture_output=True, text=True)
        self.assertEqual(table.returncode, 0, table.stderr)
        return table.stdout

    def test_the_ab_table_gives_the_mean_of_the_rounds(self):
        table = self.ab({("base", 0): (1.0, True), ("base", 1): (1.0, True), ("base", 2): (1.3, True),
                         ("new", 0): (1.2, True)})
        self.assertIn("| tma_push | 1.100 (1.000-1.300) | 1.200 |", table)  # not the median, nor mid-range

    def test_one_invalid_round_marks_the_ab_cell_invalid(self):
        table = self.ab({("base", 0): (1.1, True), ("base", 1): (1.1, False), ("new", 0): (1.0, True)})
        self.assertIn("| tma_push | 1.100 (1.100-1.100) INVALID | 1.000 |", table)

    def device_call(self, name, seconds, *command):
        """device-call.sh with $OUT a folder of the test; returns (exit code, output, archive's members)."""
        os.makedirs(self.out, exist_ok=True)
        self.addCleanup(shutil.rmtree, os.path.join("/tmp", name), True)
        p = subprocess.run([os.path.join(SCRIPTS, "device-call.sh"), name, seconds, *command],
                           env=dict(os.environ, OUT=self.out), capture_output=True, text=True, timeout=60)
        archive = os.path.join(self.out, name + ".tgz")
        members = []
        if os.path.exists(archive):
            members = subprocess.run(["tar", "tzf", archive], capture_output=True, text=True).stdout.split()
        return p.returncode, p.stdout + p.stderr, members

    def test_a_device_call_packs_what_its_command_left_and_keeps_its_exit_code(self):
        name = "call-%d" % os.getpid()
        code, output, members = self.device_call(
            name, "20", "sh", "-c", 'echo result > "$OUT/figures.json"; mkdir "$OUT/bin"; '
                                    'echo binary > "$OUT/bin/program"; echo said; exit 3')
        self.assertEqual(code, 3, output)
        self.assertIn("said", output)
        for member in ("figures.json", "output.log", "call.txt"):
            self.assertIn(f"{name}/{member}", members)
        self.assertFalse([m for m in members if "/bin" in m], members)  # binaries stay behind

    def test_a_device_call_that_runs_out_of_time_still_packs_its_logs(self):
        name = "slow-%d" % os.getpid()
        code, output, members = self.device_call(name, "1", "sh", "-c", 'echo started > "$OUT/early.log"; sleep 30')
        self.assertEqual(code, 124, output)
        self.assertIn(f"{name}/early.log", members)
        self.assertIn("exit code: 124", output)

    def test_a_device_call_refuses_what_would_lose_its_results(self):
        for args, env, says in ((["x", "10"], {"OUT": self.tmp.name}, "usage"),
                                (["x", "ten", "true"], {"OUT": self.tmp.name}, "SECONDS"),
                                (["../x", "10", "true"], {"OUT": self.tmp.name}, "NAME"),
                                ([".."] + ["10", "true"], {"OUT": self.tmp.name}, "not dots alone"),
                                (["x", "10", "true"], {"OUT": ""}, "OUT must name")):
            p = subprocess.run([os.path.join(SCRIPTS, "device-call.sh"), *args], env=dict(os.environ, **env),
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn(says, p.stderr, args)

    def steps(self, deadline, body):
        """Runs BODY (bash) after sourcing scripts/lib/step.sh with STEP_DEADLINE_S=DEADLINE
        ('' for none); returns (exit code, output, seconds taken); the body's last line
        prints the failures."""
        script = (f'STEP_LOGS={self.tmp.name} STEP_DEADLINE_S={deadline}; failures=()\n'
                  f'source {SCRIPTS}/lib/step.sh\n{body}\nprintf "failed: %s\\n" "${{failures[@]}}"\n')
        start = time.monotonic()
        p = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout + p.stderr, time.monotonic() - start

    def test_a_step_ends_at_the_deadline_and_the_next_is_not_started(self):
        code, output, seconds = self.steps(2, 'step slow 60 sleep 30; echo "slow: $?"\n'
                                              f'step next 60 touch {self.tmp.name}/next-ran; echo "next: $?"')
        self.assertLess(seconds, 15, output)  # cut at the 2 s deadline, not the 60 s limit
        self.assertIn("slow: 124", output)
        self.assertIn("failed: slow (rc 124: out of time)", output)
        self.assertIn("next         not started: the deadline (2s) has passed", output)
        self.assertIn("failed: next (no time left)", output)
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "next-ran")))

    def test_a_step_without_a_limit_or_deadline_runs_to_the_end(self):
        code, output, _ = self.steps("", 'set -u; step unbounded 0 sh -c "sleep 1; echo done"; echo "unbounded: $?"')
        self.assertIn("unbounded: 0", output)
        self.assertIn("\nfailed: \n", output + "\n", "nothing failed")

    def test_a_step_logs_its_output_and_only_real_failures_count(self):
        code, output, _ = self.steps("", 'step fine 10 echo logged; step skipped 10 sh -c "exit 77"\n'
                                         'step broken 10 sh -c "echo why; exit 3"; echo "broken: $?"')
        with open(os.path.join(self.tmp.name, "fine.log")) as f:
            self.assertEqual(f.read(), "logged\n")
        self.assertIn("(skipped)", output)
        self.assertIn("broken: 3", output)
        self.assertIn("why", output)  # the failed step's log tail
        failed = [line for line in output.splitlines() if line.startswith("failed: ")]
        self.assertEqual(failed, ["failed: broken (rc 3)"], output)


if __name__ == "__main__":
    unittest.main()
