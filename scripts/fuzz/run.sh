#!/usr/bin/env bash
# Builds (when needed) and runs one libFuzzer target for SECONDS seconds on its committed seed
# corpus (fuzz/corpus/TARGET, read only) plus a working corpus of what it finds
# (build-fuzz/corpus/TARGET), with its dictionary when there is one (fuzz/dict/TARGET.dict).
# Crashes land in build-fuzz/crashes/TARGET/; the final statistics (executions, cov:, ft:)
# end the output. Needs clang-16 and libclang-rt-16-dev (scripts/quickstart.sh lists them).
#   scripts/fuzz/run.sh TARGET SECONDS [extra libFuzzer flags...]
#   TARGET: one of fuzz/fuzz_*.cc (fuzz_decode fuzz_asm fuzz_npy fuzz_json fuzz_records fuzz_diff
#           fuzz_compile fuzz_graph fuzz_onnx fuzz_config)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -lt 2 ]; then
  echo "usage: $0 TARGET SECONDS [libFuzzer flags...]" >&2
  exit 2
fi
target=$1
seconds=$2
shift 2
if ! command -v clang++-16 >/dev/null; then
  echo "fuzz: clang++-16 not found: apt-get install clang-16 libclang-rt-16-dev" >&2
  exit 2
fi
cd "$root"
# FUZZ_NO_BUILD=1: already built (scripts/fuzz/campaign.sh runs several at once).
if [ -z "${FUZZ_NO_BUILD:-}" ]; then
  [ -f build-fuzz/build.ninja ] || cmake --preset fuzz >/dev/null
  cmake --build build-fuzz --target "$target" -j "${JOBS:-$(nproc)}"
fi
work=build-fuzz/corpus/$target
crashes=build-fuzz/crashes/$target
mkdir -p "$work" "$crashes"
# fuzz_graph JIT-compiles and simulates a whole network per input: up to about 10 s alone under
# ASan on this machine, and several times that beside other work, so 10 s would flag slowness
# as a hang.
case $target in fuzz_graph) default_timeout=120 ;; *) default_timeout=10 ;; esac
args=(-max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$crashes/"
      -timeout="${FUZZ_TIMEOUT:-$default_timeout}" -rss_limit_mb="${FUZZ_RSS_MB:-2048}")
[ -f "fuzz/dict/$target.dict" ] && args+=(-dict="fuzz/dict/$target.dict")
# The working corpus comes first: libFuzzer writes new inputs there, never into fuzz/corpus.
exec "build-fuzz/fuzz/$target" "${args[@]}" "$@" "$work" "fuzz/corpus/$target"
