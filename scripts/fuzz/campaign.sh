#!/usr/bin/env bash
# The long fuzzing campaign (docs/reliability.md records its figures): every libFuzzer target
# until it has run RUNS inputs (default one million) or for MAX_SECONDS (default 3600), whichever
# comes first, on its working corpus build-fuzz/corpus/TARGET (kept between campaigns) seeded
# with the committed fuzz/corpus/TARGET, JOBS targets at a time, each under `nice`. Writes a
# Markdown table of executions, executions per second, coverage (cov, ft), corpus size, crashes
# and time to build-fuzz/campaign.md, and each target's log to build-fuzz/campaign/TARGET.log.
# A crash stops only its target; its input is in build-fuzz/crashes/TARGET/.
#   scripts/fuzz/campaign.sh [RUNS] [MAX_SECONDS]
# Environment: JOBS (default: the cores), FUZZ_TARGETS (default: every fuzz/fuzz_*.cc).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-1000000}
max_seconds=${2:-3600}
jobs=${JOBS:-$(nproc)}
cd "$root"
read -r -a targets <<< "${FUZZ_TARGETS:-$(ls fuzz/fuzz_*.cc | xargs -n1 basename | sed 's/\.cc$//' | tr '\n' ' ')}"
[ -f build-fuzz/build.ninja ] || cmake --preset fuzz >/dev/null
cmake --build build-fuzz -j "$jobs" --target "${targets[@]}"
mkdir -p build-fuzz/campaign

campaign_one() {
  local t=$1 runs=$2 max_seconds=$3
  local log=build-fuzz/campaign/$t.log start rc=0
  start=$(date +%s)
  FUZZ_NO_BUILD=1 nice -n 10 scripts/fuzz/run.sh "$t" "$max_seconds" -runs="$runs" >"$log" 2>&1 || rc=$?
  local n cov ft corpus crashes
  n=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo "?")
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo "?")
  corpus=$(ls "build-fuzz/corpus/$t" | wc -l)
  # libFuzzer's failures (crash-, leak-, timeout-, oom-); slow-unit- files are only slow inputs.
  crashes=$(ls "build-fuzz/crashes/$t" 2>/dev/null | grep -cE '^(crash|leak|timeout|oom)-' || true)
  local secs=$(( $(date +%s) - start ))
  printf '| `%s` | %s | %s | %s | %s | %s | %s | %s s |%s\n' "$t" "$n" \
    "$(( n / (secs > 0 ? secs : 1) ))" "$cov" "$ft" "$corpus" "$crashes" "$secs" \
    "$([ $rc -eq 0 ] || echo " exit $rc")"
}
export -f campaign_one
{
  echo "Campaign of $(date -u +%F): up to $runs executions or $max_seconds s per target, $jobs at a time,"
  echo "on $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //') ($(nproc) cores)."
  echo
  echo "| target | executions | exec/s | cov | ft | corpus | crashes | time |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'campaign_one "$@"' _ {} "$runs" "$max_seconds"
} | tee build-fuzz/campaign.md
