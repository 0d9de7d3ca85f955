#!/usr/bin/env bash
# One device call's work, bounded, its results packed into one archive of the call's $OUT
# (the device tool brings back a few files only, and nothing from a call killed at its limit):
#
#   scripts/device-call.sh NAME SECONDS COMMAND [ARGS...]
#
# COMMAND runs from the repository root with OUT=/tmp/NAME (the GPU scripts write their logs
# and results under $OUT) and at most SECONDS (then SIGTERM, SIGKILL 10 s later); its output
# goes to NAME/output.log, the command, its exit code and time to NAME/call.txt. Then
# /tmp/NAME, without build trees or binaries (bin/, build/), is packed as $OUT/NAME.tgz,
# whatever the command did. Exit status: the command's (124 when it ran out of time, 137
# when it outlived SIGTERM). A script with a deadline of its own gets a shorter one than
# SECONDS, so that it ends its steps itself and keeps their logs:
#   scripts/device-call.sh presets 480 scripts/gpu-gemm-check.sh presets
#   scripts/device-call.sh check 585 env SYMM_GIT_COMMIT=abc1234 SYMM_CHECK_DEADLINE_S=540 scripts/gpu-check.sh
set -uo pipefail
usage="usage: $0 NAME SECONDS COMMAND [ARGS...]"
[ $# -ge 3 ] || { echo "$usage" >&2; exit 2; }
name=$1 seconds=$2
shift 2
[[ $name =~ ^[A-Za-z0-9._-]+$ && ! $name =~ ^\.+$ ]] ||
  { echo "device-call: NAME must be letters, digits, '.', '_' or '-', not dots alone: $name" >&2; exit 2; }
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "device-call: SECONDS must be a positive whole number: $seconds" >&2; exit 2; }
[ -n "${OUT:-}" ] && [ -d "$OUT" ] || {
  echo "device-call: OUT must name the device call's existing output folder (the device tool sets it)" >&2
  exit 2
}
archive_dir=$(cd "$OUT" && pwd)
work=/tmp/$name
[ "$work" != "$archive_dir" ] || { echo "device-call: NAME's folder /tmp/$name is \$OUT itself" >&2; exit 2; }
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$(dirname "$0")/.." || exit 1
start=$SECONDS
OUT=$work timeout -k 10 "$seconds" "$@" >"$work/output.log" 2>&1
rc=$?
printf 'command: %s\nexit code: %s\nseconds: %s\nended: %s\n' "$*" "$rc" "$((SECONDS - start))" \
  "$(date -u +%FT%TZ)" >"$work/call.txt"
tail -n 40 "$work/output.log"
cat "$work/call.txt"
tar czf "$archive_dir/$name.tgz" --exclude=bin --exclude=build -C /tmp "$name" ||
  echo "device-call: packing /tmp/$name failed" >&2
exit "$rc"
