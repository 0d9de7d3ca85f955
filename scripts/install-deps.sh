#!/usr/bin/env bash
# Installs what the build needs and is missing, from Debian/Ubuntu packages.
# Nothing is installed when everything is present (the GPU machine has no network,
# and everything there is preinstalled), so this is safe to run everywhere.
set -euo pipefail

missing=()
have_header() { [ -e "/usr/include/$1" ] || [ -e "/usr/local/include/$1" ]; }
command -v cmake >/dev/null || missing+=(cmake)
command -v ninja >/dev/null || missing+=(ninja-build)
command -v g++ >/dev/null || missing+=(g++)
have_header gtest/gtest.h || missing+=(libgtest-dev)
have_header gmock/gmock.h || missing+=(libgmock-dev)
have_header CLI/CLI.hpp || missing+=(libcli11-dev)
have_header nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
have_header fmt/format.h || missing+=(libfmt-dev)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "symm: installing missing packages: ${missing[*]}"
if ! command -v apt-get >/dev/null; then
  echo "symm: apt-get is not available; install ${missing[*]} by hand" >&2
  exit 1
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
if ! $SUDO apt-get update -qq || ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"; then
  echo "symm: could not install ${missing[*]} (no network or no package source?); install them by hand" >&2
  exit 1
fi

if [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "symm: the CUDA 13 toolkit is expected in /usr/local/cuda (nvcc not found)" >&2
  exit 1
fi
