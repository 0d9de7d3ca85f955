#!/usr/bin/env bash
# Installs what the build needs and is missing, from Debian/Ubuntu packages.
# Nothing is installed when everything is present (the GPU machine has no network,
# and everything there is preinstalled), so this is safe to run everywhere.
set -euo pipefail

nvcc=/usr/local/cuda/bin/nvcc
if [ ! -x "$nvcc" ]; then
  echo "symm: the CUDA 13 toolkit is expected in /usr/local/cuda ($nvcc not found); install it first" >&2
  exit 1
fi
# The version text in a variable: with pipefail, `nvcc | grep -q` could fail when grep
# stops reading before nvcc has finished writing.
version=$("$nvcc" --version)
if ! grep -q "release 13\." <<<"$version"; then
  echo "symm: $nvcc is not CUDA 13 ($(tail -1 <<<"$version")); install the CUDA 13 toolkit" >&2
  exit 1
fi

missing=()
have_header() { [ -e "/usr/include/$1" ] || [ -e "/usr/local/include/$1" ]; }
command -v cmake >/dev/null || missing+=(cmake)
command -v ninja >/dev/null || missing+=(ninja-build)
command -v g++ >/dev/null || missing+=(g++)
command -v git >/dev/null || missing+=(git)  # the cpu tier checks the mutation patches apply
have_header gtest/gtest.h || missing+=(libgtest-dev)
have_header gmock/gmock.h || missing+=(libgmock-dev)
have_header CLI/CLI.hpp || missing+=(libcli11-dev)
have_header nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
have_header fmt/format.h || missing+=(libfmt-dev)
# The report tools and their cpu tests (tools/report, tests/cpu/report): PATH's python3 or
# /usr/bin/python3 with matplotlib (the GPU machine's has it from pip); else the
# distribution's python3-matplotlib (it brings python3) for /usr/bin/python3.
"$(dirname "$0")"/report-python.sh >/dev/null || missing+=(python3-matplotlib)

if [ ${#missing[@]} -gt 0 ]; then
  echo "symm: installing missing packages: ${missing[*]}"
  if ! command -v apt-get >/dev/null; then
    echo "symm: apt-get is not available; install ${missing[*]} by hand" >&2
    exit 1
  fi
  SUDO=()
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null || ! sudo -n true 2>/dev/null; then
      echo "symm: installing ${missing[*]} needs root: run 'sudo scripts/install-deps.sh' once, or install them by hand" >&2
      exit 1
    fi
    SUDO=(sudo -n)
  fi
  apt=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive timeout 900 apt-get -o Acquire::http::Timeout=60)
  if ! "${apt[@]}" update -qq || ! "${apt[@]}" install -y -qq "${missing[@]}"; then
    echo "symm: apt-get could not install ${missing[*]} (no network or no package source?); install them by hand" >&2
    exit 1
  fi
fi

# CMakeLists.txt and CMakePresets.json need CMake 3.25 (Debian 12's); older ones reject
# the presets with a less helpful message.
version=$(cmake --version | head -1 | grep -oE '[0-9]+\.[0-9]+' | head -1)
if [ "$(printf '%s\n3.25\n' "$version" | sort -V | head -1)" != "3.25" ]; then
  echo "symm: CMake $version is too old; 3.25 or newer is needed (e.g. pip install cmake)" >&2
  exit 1
fi
