"""The mutations of scripts/mutation-check.sh (tests/mutations/*.patch), checked without
running them: a patch that no longer applies, or whose tests pattern matches no test, is
not judged when the check runs (often on a scarce GPU machine), so a mutation that
silently stopped counting is found here, as soon as the code it patches changes."""
import os
import re
import subprocess
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
MUTATIONS = os.path.join(ROOT, "tests", "mutations")
KEYS = ("tier", "targets", "tests", "bug")


def header(path):
    with open(path) as f:
        fields = dict(re.match(r"# (\w+): (.*)", line).groups() for line in f if re.match(r"# \w+: ", line))
    return {key: fields.get(key, "").strip() for key in KEYS}


class Mutations(unittest.TestCase):
    def setUp(self):
        self.patches = sorted(os.path.join(MUTATIONS, n) for n in os.listdir(MUTATIONS) if n.endswith(".patch"))
        self.assertTrue(self.patches)

    def test_every_mutation_says_what_it_breaks_and_who_must_catch_it(self):
        for path in self.patches:
            name, fields = os.path.basename(path), header(path)
            for key in KEYS:
                self.assertTrue(fields[key], f"{name}: no '# {key}:' line")
            self.assertTrue(name.startswith(fields["tier"] + "-"), f"{name}: tier {fields['tier']} not in its name")

    def test_every_mutation_still_applies(self):
        for path in self.patches:
            p = subprocess.run(["git", "apply", "--check", path], cwd=ROOT, capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, f"{os.path.basename(path)} no longer applies: {p.stderr}"
                             "(make it again against the code it mutates)")

    def test_every_mutations_tests_pattern_matches_a_test(self):
        build = os.environ.get("SYMM_BUILD_DIR")
        if not build:
            self.skipTest("SYMM_BUILD_DIR not set (CTest sets it to the build tree)")
        p = subprocess.run(["ctest", "--test-dir", build, "-N"], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        names = re.findall(r"Test +#\d+: (\S+)", p.stdout)
        self.assertGreater(len(names), 100, p.stdout[-2000:])
        for path in self.patches:
            pattern = header(path)["tests"]
            self.assertTrue(any(re.search(pattern, n) for n in names),
                            f"{os.path.basename(path)}: '{pattern}' matches no test of {build}")


if __name__ == "__main__":
    unittest.main()
