#!/usr/bin/env bash
# Runs tests under a sanitizer, in a release build directory of its own (debug builds under a sanitizer take
# half an hour for the server's tests on two cores; release reports still name the functions):
#
#   scripts/sanitize.sh thread [FILTER]     ThreadSanitizer (default filter: the server's tests)
#   scripts/sanitize.sh address [FILTER]    AddressSanitizer with LeakSanitizer (default filter: every test)
#
# The tests start the `wayfinder` binary of the same build, so the server they talk to is instrumented too.
# Exits non-zero when a sanitizer reports anything.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:?usage: scripts/sanitize.sh thread|address [FILTER]}
case "$kind" in
    thread) filter=${2:-"ServerTests"} ;;
    address) filter=${2:-""} ;;
    *) echo "sanitize.sh: unknown sanitizer '$kind' (thread, address)" >&2; exit 2 ;;
esac
build=.build/sanitize-$kind
log=$build/report.log
mkdir -p "$build"
swift build -c release --build-tests --sanitize="$kind" --build-path "$build" 2>&1 | grep -E "error|Build" | tail -n 2
export TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 log_path=$PWD/$build/tsan"
export ASAN_OPTIONS="detect_leaks=1 halt_on_error=0 log_path=$PWD/$build/asan"
# XCTest's runner keeps its suite objects to the end of the process: not ours to report.
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt print_suppressions=0"
rm -f "$build"/tsan.* "$build"/asan.*
status=0
swift test -c release --sanitize="$kind" --build-path "$build" --skip-build ${filter:+--filter "$filter"} > "$log" 2>&1 || status=$?
grep -E "Test run with|passed after|failed after" "$log" | tail -n 1
reports=$(cat "$build"/tsan.* "$build"/asan.* 2>/dev/null | grep -cE "^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: (AddressSanitizer|LeakSanitizer))" || true)
echo "$kind sanitizer: $reports reports (logs: $build/${kind:0:1}san.*, test output: $log)"
[ "$status" -eq 0 ] && [ "$reports" -eq 0 ]
