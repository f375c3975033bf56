#!/usr/bin/env bash
# Co-simulation at scale: N random token-correct programs per configuration (default 10,000)
# on the rtl engine against the cycle model (cycles, per-module accounting, per-instruction
# timing) and the functional model (the final DRAM image), split over every core. Prints one
# line per chunk and a total per configuration; on a mismatch, the first one's reproducer
# (seed, program as assembly, shrunk program) and exit code 1. See docs/reliability.md.
#   scripts/cosim/at_scale.sh [BUILD_DIR] [N] [CONFIGS] [PLATFORMS]
#   defaults: build 10000 "tiny gemm8x8 vta" "sim"   (the RTL also runs on zcu104)
# Environment: JOBS (default nproc), FIRST_SEED (default 1).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
n=${2:-10000}
configs=${3:-"tiny gemm8x8 vta"}
platforms=${4:-sim}
jobs=${JOBS:-$(nproc)}
first=${FIRST_SEED:-1}
cd "$root"
cmake --build "$build" --target weft_cosim_at_scale -j "$jobs" >/dev/null
bin=$build/tests/rtl/weft_cosim_at_scale
[ -x "$bin" ] || { echo "at_scale: $bin not built (needs Verilator: the rtl engine)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
for platform in $platforms; do
  for config in $configs; do
    t0=$(date +%s)
    chunk=$(( (n + jobs - 1) / jobs ))
    pids=()
    for ((j = 0; j < jobs; ++j)); do
      lo=$((first + j * chunk))
      hi=$((lo + chunk - 1))
      [ $hi -ge $((first + n)) ] && hi=$((first + n - 1))
      [ $lo -gt $hi ] && continue
      "$bin" "$config" "$platform" "$lo" "$hi" >"$out/$config.$platform.$j" 2>&1 &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || status=1; done
    programs=0
    mismatched=""
    for f in "$out/$config.$platform".*; do
      head -1 "$f"
      programs=$((programs + $(grep -o '[0-9]* programs' "$f" | head -1 | cut -d' ' -f1 || echo 0)))
      if grep -q MISMATCH "$f" && [ -z "$mismatched" ]; then mismatched=$f; fi
    done
    echo "== $config/$platform: $programs programs run, $(( $(date +%s) - t0 )) s"
    if [ -n "$mismatched" ]; then
      echo "== first mismatch ($config/$platform):"
      cat "$mismatched"
    fi
  done
done
exit $status
