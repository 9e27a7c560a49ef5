#!/usr/bin/env bash
# scripts/failure-summary.sh on a ctest log holding a failed GoogleTest case, a passing one and a
# failed Python unittest: the summary names the failed case with its message and the unittest
# failure with its assertion, and leaves out the passing case and what follows each failure.
set -euo pipefail
summary=$(bash "$1" "$2")
echo "$summary"
fail() { echo "FAILED: $*" >&2; exit 1; }
grep -qx -- '--- Manifest/Adversarial.GetsItsVerdict/threaded_honest_cpu' <<<"$summary" || fail "no header for the gtest case"
grep -q 'Which is: "rejected"' <<<"$summary" || fail "the gtest message is missing"
grep -q 'rejected · work beside' <<<"$summary" || fail "the streamed verdict is missing"
grep -qx -- '--- FAIL: test_a (tests.T)' <<<"$summary" || fail "no header for the unittest failure"
grep -q 'AssertionError: 1 != 2' <<<"$summary" || fail "the assertion is missing"
! grep -q 'GetsItsVerdict/ok\|FAILED  \]\|Ran 3 tests' <<<"$summary" || fail "lines outside the failures"
[ "$(bash "$1" /dev/null)" = "" ] || fail "an empty log gives a summary"
! bash "$1" /nonexistent/log 2>/dev/null || fail "a missing log is not an error"
echo "failure-summary: ok"
