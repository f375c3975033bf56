#!/usr/bin/env bash
# The fuzz smoke of CI (.ci/run, docs/reliability.md): builds every libFuzzer target (the `fuzz`
# preset, build-fuzz/) and runs each for SECONDS on a scratch copy of its committed seed corpus
# (fuzz/corpus/TARGET, never written), JOBS targets at a time. A crash, a leak, undefined
# behaviour, a timeout or a failed oracle fails the step; the input is kept in
# build-fuzz/crashes/TARGET/ (reproduce: build-fuzz/fuzz/TARGET FILE). Prints each target's
# executions, coverage and time, and the step's total.
#   scripts/fuzz/smoke.sh [SECONDS]          default 30
# Environment: JOBS (default: the cores), FUZZ_TARGETS (default: every fuzz/fuzz_*.cc),
# FUZZ_SEED (default 1). A fixed seed does not make libFuzzer reproducible (what each execution
# covers and timing steer it too), so the smoke can find a bug the submission did not cause;
# the long campaign (scripts/fuzz/campaign.sh, random seeds) is the defence, and each crash it
# finds joins the corpus (docs/reliability.md, "What CI runs").
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-30}
jobs=${JOBS:-$(nproc)}
cd "$root"
if ! command -v clang++-16 >/dev/null; then
  echo "fuzz smoke: clang++-16 not found: apt-get install clang-16 libclang-rt-16-dev" >&2
  exit 1
fi
read -r -a targets <<< "${FUZZ_TARGETS:-$(ls fuzz/fuzz_*.cc | xargs -n1 basename | sed 's/\.cc$//' | tr '\n' ' ')}"
t0=$(date +%s)
[ -f build-fuzz/build.ninja ] || cmake --preset fuzz >/dev/null
# A target whose libraries are not in this build (fuzz_onnx without ONNX) is skipped by name.
# (The list is read once: a `| grep -q` under pipefail drops targets when the writer gets SIGPIPE.)
targets_here=$(cmake --build build-fuzz --target help)
built=()
for t in "${targets[@]}"; do
  if grep -q "^$t:" <<< "$targets_here"; then built+=("$t"); else
    echo "fuzz smoke: $t is not in this build (an optional library is missing); skipped"
  fi
done
cmake --build build-fuzz -j "$jobs" --target "${built[@]}"
t1=$(date +%s)
logs=build-fuzz/smoke
rm -rf "$logs"
mkdir -p "$logs"

smoke_one() {
  local t=$1 seconds=$2
  local work crashes args
  work=$(mktemp -d)
  crashes=build-fuzz/crashes/$t
  mkdir -p "$crashes"
  args=(-max_total_time="$seconds" -seed="${FUZZ_SEED:-1}" -print_final_stats=1
        -artifact_prefix="$crashes/" -timeout="${FUZZ_TIMEOUT:-20}" -rss_limit_mb="${FUZZ_RSS_MB:-2048}")
  [ -f "fuzz/dict/$t.dict" ] && args+=(-dict="fuzz/dict/$t.dict")
  local start rc=0
  start=$(date +%s)
  "build-fuzz/fuzz/$t" "${args[@]}" "$work" "fuzz/corpus/$t" >"$logs/$t.log" 2>&1 || rc=$?
  rm -rf "$work"
  local runs cov
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$logs/$t.log" | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -o 'DONE *cov: [0-9]* ft: [0-9]*' "$logs/$t.log" | tail -1 | sed 's/DONE *//' || true)
  printf '%-14s %s, %s executions, %s, %d s\n' "$t" "$([ $rc -eq 0 ] && echo ok || echo FAILED)" \
    "$runs" "${cov:-cov: ?}" "$(( $(date +%s) - start ))"
  if [ $rc -ne 0 ]; then
    echo "---- $t (exit $rc): the end of its log ($logs/$t.log) ----"
    tail -40 "$logs/$t.log"
  fi
  return $rc
}
export -f smoke_one
export logs FUZZ_TIMEOUT FUZZ_RSS_MB FUZZ_SEED
status=0
printf '%s\n' "${built[@]}" | xargs -P "$jobs" -I{} bash -c 'smoke_one "$@"' _ {} "$seconds" || status=1
t2=$(date +%s)
echo "fuzz smoke: build $((t1 - t0)) s, ${#built[@]} targets x ${seconds} s in $((t2 - t1)) s ($jobs at a time), $([ $status -eq 0 ] && echo passed || echo FAILED)"
exit $status
