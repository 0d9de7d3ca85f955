"""What the report tests share: where the tools and fixtures are, and running a tool."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
TOOLS = os.path.join(ROOT, "tools", "report")
FIXTURES = os.path.join(HERE, "fixtures")
CEILINGS = os.path.join(ROOT, "bench", "ceilings.json")
sys.path.insert(0, TOOLS)


def run_tool(name, *args, cwd=FIXTURES):
    """Runs tools/report/<name> with this interpreter; returns (exit code, stdout + stderr)."""
    p = subprocess.run([sys.executable, os.path.join(TOOLS, name), *args], cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr
