#!/usr/bin/env bash
# The cycle model's speed (docs/simulator.md, "Speed"), with full data, on one core:
#   scripts/bench/sim_speed.sh [BUILD_DIR] [BASE_BUILD_DIR]
# 1. The cycle model and the Verilated RTL side by side in one run on the GEMM-heavy program of
#    issue #19 (30 GEMMs of 256 micro-ops x 16 x 16), gemm8x8 and vta: simulated cycles per
#    second of each and the ratio (bench_rtl_speed, which also checks cycles, accounting and
#    image; with BASE_BUILD_DIR, the older cycle model's bench_rtl_speed too).
# 2. Every program of bench_sim_speed (GEMM-heavy, blocked GEMM, load-heavy, token-heavy,
#    ResNet-18 C1-C12), each checked against the functional model. With BASE_BUILD_DIR (a build
#    of an older tree, e.g. main, with this tree's scripts/bench), the old and the new binary run
#    alternately ROUNDS times, so that both see the same machine load, and the table shows both.
# Speeds are medians, by thread CPU time (a shared machine steals wall time, not CPU time) and
# by wall time. Environment: ROUNDS (3), REPS (5, cycle-model runs per measurement).
# Writes BUILD_DIR/bench/sim_speed/*.json and prints Markdown tables.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
base=${2:-}
[ -n "$base" ] && base=$(cd "$base" && pwd)
rounds=${ROUNDS:-3}
reps=${REPS:-5}
out="$build/bench/sim_speed"
mkdir -p "$out"
rm -f "$out"/*.json
pin() { if taskset -c 0 true 2>/dev/null; then taskset -c 0 "$@"; else "$@"; fi; }

echo "# Weft cycle model speed, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')," \
  "family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')" \
  "model $(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2 | tr -d ' ');" \
  "vector: $(grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|avx512f|avx512bw|avx512_vnni|avx_vnni)$' | tr '\n' ' ')"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
if [ -x "$build/scripts/bench/bench_int8_peak" ]; then
  pin "$build/scripts/bench/bench_int8_peak" > "$out/int8_peak.json"
fi

for cfg in gemm8x8 vta; do
  for r in $(seq 1 "$rounds"); do
    if [ -n "$base" ]; then
      pin "$base/scripts/bench/bench_sim_speed" --config "$cfg" --reps "$reps" \
        --program gemm_heavy --program gemm --program load_heavy --program token_heavy \
        --program resnet18 --json "$out/base_${cfg}_$r.json" > /dev/null
    fi
    pin "$build/scripts/bench/bench_sim_speed" --config "$cfg" --reps "$reps" \
      --program gemm_heavy --program gemm --program load_heavy --program token_heavy \
      --program resnet18 --json "$out/new_${cfg}_$r.json" > /dev/null
  done
  if [ -x "$build/scripts/bench/bench_rtl_speed" ]; then
    pin "$build/scripts/bench/bench_rtl_speed" --config "$cfg" --rounds "$rounds" \
      --cycle-reps "$reps" --json "$out/rtl_new_$cfg.json" > /dev/null
    if [ -n "$base" ] && [ -x "$base/scripts/bench/bench_rtl_speed" ]; then
      pin "$base/scripts/bench/bench_rtl_speed" --config "$cfg" --rounds "$rounds" \
        --cycle-reps "$reps" --json "$out/rtl_base_$cfg.json" > /dev/null
    fi
  fi
done

python3 - "$out" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
def load(p): return json.load(open(p))

print("\n## Cycle model and Verilated RTL, GEMM-heavy program, one run each (medians)\n")
print("| config | cycles | model | cycle model Mc/s (cpu / wall) | RTL Mc/s (cpu / wall) | ratio (cpu / wall) | GEMM kernel | GMAC/s (cpu) | identical |")
print("|---|---|---|---|---|---|---|---|---|")
for cfg in ("gemm8x8", "vta"):
    for which in ("base", "new"):
        p = os.path.join(out, f"rtl_{which}_{cfg}.json")
        if not os.path.exists(p): continue
        r = load(p)
        print(f'| {cfg} | {r["cycles"]:,} | {"before" if which == "base" else "after"} | '
              f'{r["cycle_model_cycles_per_cpu_second"]/1e6:.1f} / {r["cycle_model_cycles_per_second"]/1e6:.1f} | '
              f'{r["rtl_cycles_per_cpu_second"]/1e6:.2f} / {r["rtl_cycles_per_second"]/1e6:.2f} | '
              f'**{r["cycle_model_over_rtl_speed_cpu"]:.0f}x** / {r["cycle_model_over_rtl_speed"]:.0f}x | '
              f'{r["kernel"]} | {r["cycle_model_macs_per_cpu_second"]/1e9:.1f} | '
              f'{"yes" if r["same_cycles_accounting_and_image"] else "NO"} |')

peak = os.path.join(out, "int8_peak.json")
if os.path.exists(peak):
    p = load(peak)
    print(f'\nHost int8 peak, one core (bench_int8_peak): clock {p["clock_ghz"]:.2f} GHz', end="")
    if "vpdpbusd_zmm_gmacs" in p:
        print(f'; vpdpbusd zmm {p["vpdpbusd_zmm_per_cycle"]:.2f}/cycle = {p["vpdpbusd_zmm_gmacs"]:.0f} GMAC/s', end="")
    if "vpmaddwd_ymm_gmacs" in p:
        print(f'; vpmaddwd ymm {p["vpmaddwd_ymm_per_cycle"]:.2f}/cycle = {p["vpmaddwd_ymm_gmacs"]:.0f} GMAC/s', end="")
    print()

print("\n## Every program, before and after (median over rounds of the median of reps)\n")
print("| config | program | cycles | util | before Mc/s (cpu) | after Mc/s (cpu) | after Mc/s (wall) | speed-up | identical |")
print("|---|---|---|---|---|---|---|---|---|")
for cfg in ("gemm8x8", "vta"):
    runs = {w: [load(p) for p in sorted(glob.glob(os.path.join(out, f"{w}_{cfg}_*.json")))]
            for w in ("base", "new")}
    if not runs["new"]: continue
    layers = []
    for i, r in enumerate(runs["new"][0]["results"]):
        name = r["program"]
        def med(w, key):
            v = [run["results"][i][key] for run in runs[w]]
            return statistics.median(v) if v else None
        after, after_wall = med("new", "simulated_cycles_per_cpu_second"), med("new", "simulated_cycles_per_second")
        before = med("base", "simulated_cycles_per_cpu_second")
        ok = all(run["results"][i]["images_identical"] for w in runs for run in runs[w])
        b = f"{before/1e6:.1f}" if before else "-"
        s = f"{after/before:.2f}x" if before else "-"
        print(f'| {cfg} | {name} | {r["cycles"]:,} | {100*r["utilization"]:.1f}% | {b} | {after/1e6:.1f} | '
              f'{after_wall/1e6:.1f} | {s} | {"yes" if ok else "NO"} |')
        if name.startswith("C"):
            layers.append((r["cycles"], before, after, after_wall, ok))
    if layers:  # the twelve layers as one workload: total cycles over total time
        cyc = sum(l[0] for l in layers)
        tot = lambda k: cyc / sum(l[0] / l[k] for l in layers) if all(l[k] for l in layers) else None
        before, after, after_wall = tot(1), tot(2), tot(3)
        b = f"{before/1e6:.1f}" if before else "-"
        s = f"{after/before:.2f}x" if before else "-"
        print(f'| {cfg} | ResNet-18 C1-C12 | {cyc:,} | | {b} | {after/1e6:.1f} | {after_wall/1e6:.1f} | {s} | '
              f'{"yes" if all(l[4] for l in layers) else "NO"} |')
PY
echo "results: $out" >&2
