# Sourced by the GPU machine's scripts: one command run as a bounded, logged step.
#
#   STEP_LOGS=DIR            where each step's output goes (DIR/NAME.log); required
#   STEP_DEADLINE_S=SECONDS  optional: the script's clock ($SECONDS) by which every step is
#                            sent SIGTERM (SIGKILL 10 s later), so a hang never takes the
#                            seconds the device call keeps for packing the logs
#   step NAME LIMIT COMMAND...
#
# Runs COMMAND for at most LIMIT seconds (0: no limit but the deadline), prints one line
# (name, exit code, seconds) and, on failure, the log's tail, and adds the name to the
# caller's `failures` array. Past the deadline a step is not started and counts as failed
# (124, as a timeout). Exit 77 means every test of a binary skipped
# (tests/support/gtest_main.cc, e.g. two-GPU tests on one GPU): reported, not a failure.
# Returns COMMAND's exit code.
step() {
  local name=$1 limit=$2 start=$SECONDS rc left
  shift 2
  if [ -n "${STEP_DEADLINE_S:-}" ]; then
    left=$((STEP_DEADLINE_S - SECONDS))
    if [ "$left" -le 0 ]; then
      printf '%-12s not started: the deadline (%ss) has passed\n' "$name" "$STEP_DEADLINE_S"
      failures+=("$name (no time left)")
      return 124
    fi
    if [ "$limit" -le 0 ] || [ "$left" -lt "$limit" ]; then limit=$left; fi
  fi
  timeout -k 10 "$((limit > 0 ? limit : 0))" "$@" >"$STEP_LOGS/$name.log" 2>&1
  rc=$?
  printf '%-12s rc=%-3s %4ss%s\n' "$name" "$rc" "$((SECONDS - start))" "$([ "$rc" -eq 77 ] && echo ' (skipped)')"
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
    failures+=("$name (rc $rc$([ "$rc" -eq 124 ] && echo ': out of time'))")
    tail -n 30 "$STEP_LOGS/$name.log"
  fi
  return "$rc"
}
