#!/usr/bin/env bash
# A compiled operator on the RTL of a configuration file (tests/support/configs/b2x8x8.json, from
# its plugin in $WEFT_RTL_CACHE): `weft run dense` and `weft run conv2d` on the rtl engine give
# the cycle engine's cycles and no mismatches. Usage: config_file_run.sh WEFT CONFIG_FILE
set -euo pipefail
weft=$1 config=$2
field() { /usr/bin/python3 -c "import sys,json; t=sys.stdin.read(); j=json.loads(t[t.index('{'):t.rindex('}')+1]); print(j.get('$1', j.get('correct')))"; }
check() {
  local what=$1; shift
  local c r
  c=$("$weft" "$@" --config "$config" --engine cycle)
  r=$("$weft" "$@" --config "$config" --engine rtl)
  local cc rc
  cc=$(echo "$c" | field cycles) rc=$(echo "$r" | field cycles)
  echo "$what: cycle engine $cc cycles, rtl $rc cycles"
  [ "$cc" = "$rc" ] || { echo "$what: cycles differ" >&2; exit 1; }
  [ "$cc" != "None" ] && [ "$cc" -gt 0 ] || { echo "$what: no cycles reported" >&2; exit 1; }
  for out in "$c" "$r"; do
    m=$(echo "$out" | field mismatches)
    [ "$m" = "0" ] || [ "$m" = "True" ] || { echo "$what: wrong result ($m)" >&2; exit 1; }
  done
}
check "dense 64x64x64" run dense --M 64 --N 64 --K 64
check "conv2d 3x3" run conv2d --H 8 --W 8 --IC 16 --OC 16 --kernel 3 --pad 1
