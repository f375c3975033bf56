#!/usr/bin/env bash
# The unit tests built with AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer
# (the `debug` CMake preset, build-debug/) and run: any sanitizer report fails the run.
# Not part of CI: on 2 cores the cold build alone takes longer than CI's whole budget allows
# beside the normal build (docs/reliability.md has the measured times).
#   scripts/sanitize.sh [CTEST_LABEL_REGEX]     default: unit
# Environment: JOBS (default nproc), CCACHE_DISABLE=1 to time a cold build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
label=${1:-unit}
jobs=${JOBS:-$(nproc)}
cd "$root"
# The RTL and the benchmarks carry no unit tests; leaving them out keeps the build to what runs.
t0=$(date +%s)
cmake --preset debug -DWEFT_RTL=OFF -DWEFT_BUILD_BENCH=OFF >/dev/null
cmake --build build-debug -j "$jobs"
t1=$(date +%s)
# halt_on_error: the first report fails the test that made it; detect_leaks: LSan at exit.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
ctest --test-dir build-debug -L "$label" -j "$jobs" --output-on-failure --timeout 900 || status=$?
t2=$(date +%s)
echo "sanitize: build $((t1 - t0)) s, tests ($label) $((t2 - t1)) s, exit $status"
exit $status
