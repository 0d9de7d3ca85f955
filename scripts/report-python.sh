#!/usr/bin/env bash
# Prints the python3 that the report tools (tools/report) run under: the first of PATH's
# python3 and the distribution's /usr/bin/python3 that imports matplotlib (install-deps.sh
# installs python3-matplotlib for /usr/bin/python3; a python3 earlier on PATH, a venv or
# pyenv, may lack it). Exits 1, printing nothing, when neither does.
# Used by scripts/install-deps.sh, scripts/main-job.sh and tests/cpu/report/CMakeLists.txt.
for python in python3 /usr/bin/python3; do
  if path=$(command -v "$python") && "$path" -c 'import matplotlib' 2>/dev/null; then
    echo "$path"
    exit 0
  fi
done
exit 1
