#!/usr/bin/env bash
# Whole-network speed of the cycle-exact run (docs/simulator.md, "Whole networks"):
#   scripts/bench/network_sim_speed.sh WEFT [BASE_WEFT] [NETS_DIR] [CONFIG]
# For every NETS_DIR/MODEL.onnx with its MODEL.input.npy (scripts/onnx/torchvision_table.py
# exports them), runs `WEFT run MODEL.onnx --input MODEL.input.npy --config CONFIG --save DIR`
# and reads the report's `wall_seconds`: the run phase (every accelerator kernel on the cycle
# model, CPU nodes, packing) without import and compile. With BASE_WEFT (an older binary), the
# two run alternately ROUNDS times, so that both see the same machine load, and the output
# files are compared byte for byte. Prints a Markdown table of the fastest run of each:
# simulated cycles per second of wall time, and the speed-up. Environment: ROUNDS (2).
set -euo pipefail
new=${1:?usage: network_sim_speed.sh WEFT [BASE_WEFT] [NETS_DIR] [CONFIG]}
base=${2:-}
nets=${3:-nets}
config=${4:-vta}
rounds=${ROUNDS:-2}
for b in "$new" $base; do
  [ -x "$b" ] || { echo "network_sim_speed.sh: '$b' is not an executable weft binary" >&2; exit 1; }
done
ls "$nets"/*.onnx > /dev/null 2>&1 || { echo "network_sim_speed.sh: no .onnx models in '$nets'" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "# Cycle-exact network runs, config $config, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')," \
  "family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')" \
  "model $(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), $(nproc) cores;" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
for model in "$nets"/*.onnx; do
  name=$(basename "$model" .onnx)
  input="$nets/$name.input.npy"
  [ -f "$input" ] || continue
  for r in $(seq 1 "$rounds"); do
    for which in base new; do
      bin=$new
      if [ "$which" = base ]; then [ -n "$base" ] || continue; bin=$base; fi
      rm -rf "$work/$which"
      "$bin" run "$model" --input "$input" --config "$config" --save "$work/$which" \
        > /dev/null 2> "$work/err" || { echo "network_sim_speed.sh: $name failed:" >&2; cat "$work/err" >&2; exit 1; }
      python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["report"]; print(sys.argv[2], sys.argv[3], r["wall_seconds"], r["accel_cycles"])' \
        "$work/$which/report.json" "$name" "$which" >> "$work/times"
    done
    if [ -n "$base" ]; then
      if cmp -s "$work/base/output.npy" "$work/new/output.npy"; then s=same; else s=DIFFERENT; fi
      echo "$name same $s" >> "$work/times"
    fi
  done
done
python3 - "$work/times" "$([ -n "$base" ] && echo 1 || echo 0)" <<'PY'
import collections, sys
best = collections.defaultdict(dict); cycles = {}; same = collections.defaultdict(set)
for line in open(sys.argv[1]):
    name, which, value, *rest = line.split()
    if which == "same":
        same[name].add(value)
        continue
    best[name][which] = min(float(value), best[name].get(which, float("inf")))
    cycles[name] = int(rest[0])
with_base = sys.argv[2] == "1"
if with_base:
    print("\n| network | cycles | before: run (s) | after (s) | speed-up | before M cycles/s | after M cycles/s | same output |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
else:
    print("\n| network | cycles | run (s) | M cycles/s |")
    print("|---|---:|---:|---:|")
for name in sorted(best):
    n, c = best[name]["new"], cycles[name]
    if with_base:
        b = best[name]["base"]
        print(f"| {name} | {c:,} | {b:.3f} | {n:.3f} | {b / n:.2f}x | {c / b / 1e6:.0f} | {c / n / 1e6:.0f} | "
              f"{'yes' if same[name] == {'same'} else 'NO'} |")
    else:
        print(f"| {name} | {c:,} | {n:.3f} | {c / n / 1e6:.0f} |")
PY
