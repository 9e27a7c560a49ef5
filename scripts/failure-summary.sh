#!/usr/bin/env bash
# Prints, from a ctest log (--output-on-failure), what each failed test said went wrong: every
# GoogleTest failure message (from "file:line: Failure" to the next "[" line) with the test it
# belongs to, and every Python unittest FAIL/ERROR block. scripts/test.sh prints it last, so the
# end of a CI log (often all a reader of a shared CI gets) names the case and the reason, not only
# the test binary. Usage: failure-summary.sh LOG
set -euo pipefail
log=${1:?usage: failure-summary.sh LOG}
[ -r "$log" ] || { echo "failure-summary: cannot read $log" >&2; exit 2; }
awk '
  /^\[ RUN      \] / { test = $4 }
  /: Failure$/ { body = 1; lines = 0; print "--- " (test == "" ? "(no test name)" : test); }
  /^(FAIL|ERROR): / { body = 1; lines = 0; print "--- " $0; next }
  body && (/^\[/ || /^--------------------+$/ && lines > 0 || /^====================+$/) { body = 0 }
  body { if (++lines <= 40) print; else if (lines == 41) print "    (more lines in the full log)" }
' "$log" | head -n 400
