#!/usr/bin/env bash
# `cmake --install` into a fresh prefix, then a user's project built against it with
# find_package(symm CONFIG): headers, libraries and package config must all be there; and
# the README's example (its app.cu block, linked as the README shows) must compile as is.
set -euo pipefail
build_dir=$1 source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >"$work/install.log"
test -x "$work/prefix/bin/symm-bench" || { echo "symm-bench was not installed"; exit 1; }
readme=$source_dir/../../../README.md  # tests/cpu/install -> the repository root
awk '/^\/\/ app.cu/{on=1} on&&/^```/{exit} on' "$readme" >"$work/app.cu"
grep -q rank_main "$work/app.cu" || { echo "no app.cu block found in $readme"; exit 1; }
cmake -S "$source_dir/consumer" -DSYMM_README_APP="$work/app.cu" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CUDA_COMPILER="${CUDACXX:-/usr/local/cuda/bin/nvcc}" -DCMAKE_CUDA_ARCHITECTURES=90a
cmake --build "$work/build"
test -x "$work/build/consumer" && test -x "$work/build/readme_app"
echo "installed package found and used by a consumer project"
