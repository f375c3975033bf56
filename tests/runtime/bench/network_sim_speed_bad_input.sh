#!/usr/bin/env bash
# scripts/bench/network_sim_speed.sh refuses bad input before any run: a binary that is not
# there, and a models folder without models. Each: exit 1, the problem named, nothing printed
# on stdout.  Usage: network_sim_speed_bad_input.sh WEFT
set -u
script="$(dirname "$0")/../../../scripts/bench/network_sim_speed.sh"
weft=$1
check() {  # expected message, then the script's arguments
  local want=$1; shift
  local out err rc
  err=$(mktemp)
  out=$("$script" "$@" 2> "$err"); rc=$?
  if [ "$rc" != 1 ] || ! grep -q "$want" "$err" || [ -n "$out" ]; then
    echo "FAIL: network_sim_speed.sh $*: exit $rc, stderr: $(cat "$err"), stdout: $out"
    exit 1
  fi
  rm -f "$err"
}
check "'/nonexistent/weft' is not an executable weft binary" /nonexistent/weft
check "'/nonexistent/base' is not an executable weft binary" "$weft" /nonexistent/base
empty=$(mktemp -d)
check "no .onnx models in '$empty'" "$weft" "" "$empty"
rmdir "$empty"
echo "bad input refused"
