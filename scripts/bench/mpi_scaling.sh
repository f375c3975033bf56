#!/usr/bin/env bash
# MPI scaling of `weft tune` from 1 to 2 ranks (docs/tuning.md, section MPI, shows the latest
# table). The protocol:
#   - one tuning job, the same at every rank count: ResNet-18 C9 on `vta`, random search,
#     seed 4, 96 trials in batches of 16 (options below change them);
#   - `mpirun -np 1` (rank 0 coordinates on its main thread and measures on a second one) against
#     `mpirun -np 2` (rank 1 measures too), both with --bind-to none so a busy core is never
#     forced on a rank, and OpenMPI's shared-memory transport only (--mca pml ob1 --mca btl
#     self,vader: one machine; it starts ~0.25 s sooner than probing every network transport;
#     --mpi-args changes it); the wall time includes mpirun, MPI start-up and every rank's set-up;
#   - the two are interleaved (1, 2, 1, 2, ...), `repeats` times, so that a change in the
#     machine's load falls on both; the medians give the speedup T1/T2 and the efficiency
#     T1/(2*T2); the CPU time of all processes (user+sys) shows the work done;
#   - as a control, the same job on the thread pool in one process (--workers 1 and 2,
#     interleaved likewise): what two measuring threads gain on this machine at this moment;
#   - every run must find the same best and the same best-after-each-trial curve, else exit 1;
#   - the load average is printed before each run, and the cores each kind of run obtained
#     (CPU time / wall time): on a shared machine a run is only as good as the quiet it got
#     (with the kernel's autogroup scheduling, a busy machine gives this session a fixed share
#     however many threads or ranks it runs), and the script warns when 2 ranks got under 1.7.
# Usage: scripts/bench/mpi_scaling.sh [--weft PATH] [--trials N] [--batch B (candidates per round: weft tune --per-round)] [--repeats R]
#          [--layer C9] [--config vta] [--strategy random] [--seed S] [--no-threads]
#          [--mpi-args "ARGS"] [--json FILE]
# Prints a table and a JSON object (also written to --json FILE). Takes about 15 s a repeat
# on an idle 2-core AMD EPYC (Zen 5); the default is 5 repeats.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
weft=$root/build/runtime/weft
trials=96 batch=16 repeats=5 layer=C9 config=vta strategy=random seed=4 threads=1 json=""
mpi_args="--mca pml ob1 --mca btl self,vader"
while [ $# -gt 0 ]; do
  case $1 in
    --weft) weft=$2; shift 2 ;;
    --trials) trials=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --layer) layer=$2; shift 2 ;;
    --config) config=$2; shift 2 ;;
    --strategy) strategy=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --no-threads) threads=0; shift ;;
    --mpi-args) mpi_args=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "mpi_scaling: unknown argument '$1' (see --help)" >&2; exit 1 ;;
  esac
done
for v in trials batch repeats seed; do
  case ${!v} in ''|*[!0-9]*) echo "mpi_scaling: --$v must be a positive integer (got '${!v}')" >&2; exit 1 ;; esac
  [ "${!v}" -ge 1 ] || { echo "mpi_scaling: --$v must be at least 1" >&2; exit 1; }
done
[ -x "$weft" ] || { echo "mpi_scaling: $weft is not built (cmake --build build --target weft)" >&2; exit 1; }
command -v mpirun >/dev/null || { echo "mpi_scaling: mpirun not found (install openmpi-bin)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "mpi_scaling: /usr/bin/time not found (install the time package)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "mpi_scaling: python3 not found" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
job=(tune conv2d --layer "$layer" --config "$config" --strategy "$strategy" --seed "$seed"
     --trials "$trials" --per-round "$batch" --quiet)
read -r -a extra <<< "$mpi_args"
mpi=(mpirun --oversubscribe --bind-to none "${extra[@]}")
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
# An MPI-less weft refuses a 2-rank launch; say so before measuring anything.
if ! "${mpi[@]}" -np 2 "$weft" tune dense --M 8 --N 16 --K 16 --trials 1 --quiet >/dev/null 2>"$tmp/probe.err"; then
  echo "mpi_scaling: 'mpirun -np 2 $weft tune' failed; is weft built with MPI?" >&2
  sed -n '1,5p' "$tmp/probe.err" >&2
  exit 1
fi

# run NAME CMD...: one timed run; appends "name wall cpu load1 summary" to $tmp/runs.
run() {
  local name=$1; shift
  local load t0 t1 n wall
  load=$(cut -d' ' -f1 /proc/loadavg)
  n=$(ls "$tmp" | grep -c '\.json$' || true)
  t0=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o "$tmp/time" "$@" > "$tmp/$n.json" 2>"$tmp/err" || {
    echo "mpi_scaling: $name failed:" >&2; sed -n '1,10p' "$tmp/err" >&2; exit 1; }
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  echo "$name $wall $(awk '{print $1 + $2}' "$tmp/time") $load $tmp/$n.json" >> "$tmp/runs"
  printf '  %-9s %6.2f s wall  (load %s)\n' "$name" "$wall" "$load" >&2
}

echo "mpi_scaling: ${mpi[*]} -np 1|2 weft ${job[*]}; $repeats repeats" >&2
for r in $(seq 1 "$repeats"); do
  echo "repeat $r" >&2
  run np1 "${mpi[@]}" -np 1 "$weft" "${job[@]}"
  run np2 "${mpi[@]}" -np 2 "$weft" "${job[@]}"
  if [ "$threads" = 1 ]; then
    run workers1 "$weft" "${job[@]}" --workers 1
    run workers2 "$weft" "${job[@]}" --workers 2
  fi
done

cpu=$(lscpu | sed -n 's/^Model name: *//p')
python3 - "$tmp/runs" "$json" "$cpu" "$(nproc)" "${job[*]}" "${mpi[*]}" <<'EOF'
import json, statistics, sys
runs_file, out, cpu, cores, job, mpirun = sys.argv[1:7]
runs = {}
bests = set()
for line in open(runs_file):
    name, wall, cputime, load, summary = line.split()
    s = json.load(open(summary))
    task = s["tasks"][0]
    bests.add((task["best"], tuple(task["best_after_trial"])))
    r = {"wall_s": float(wall), "cpu_s": float(cputime), "load1": float(load),
         "best": task["best"]}
    if s.get("runner"):  # MPI: how busy each rank was, the coordinator's CPU
        r["busy_fraction"] = s["runner"]["busy_fraction"]
        r["search_wall_s"] = s["runner"]["search_wall_s"]
        r["coordinator_cpu_s"] = s["runner"]["coordinator_cpu_s"]
    runs.setdefault(name, []).append(r)
res = {"cpu": cpu, "cores": int(cores), "job": "weft " + job, "mpirun": mpirun, "runs": runs}
rows = []
def pair(a, b, label):
    if a not in runs or b not in runs: return
    ta = statistics.median(r["wall_s"] for r in runs[a])
    tb = statistics.median(r["wall_s"] for r in runs[b])
    ca = statistics.median(r["cpu_s"] for r in runs[a])
    cb = statistics.median(r["cpu_s"] for r in runs[b])
    # Per repeat (interleaved, so each pair saw about the same load).
    per = [x["wall_s"] / y["wall_s"] for x, y in zip(runs[a], runs[b])]
    loads = [r["load1"] for r in runs[a] + runs[b]]
    res[label] = {"median_wall_1": ta, "median_wall_2": tb, "median_cpu_1": ca,
                  "median_cpu_2": cb, "speedup": ta / tb, "efficiency": ta / tb / 2,
                  "speedup_per_repeat": per, "load1_min": min(loads), "load1_max": max(loads)}
    # Cores the runs obtained: CPU time over wall time. A 2-way run that got well under 2
    # cores was limited by the machine (other users' sessions), not by weft.
    ua = statistics.median(r["cpu_s"] / r["wall_s"] for r in runs[a])
    ub = statistics.median(r["cpu_s"] / r["wall_s"] for r in runs[b])
    res[label].update({"cores_used_1": ua, "cores_used_2": ub})
    rows.append((label, ta, tb, ca, cb, ta / tb, ta / tb / 2, per, min(loads), max(loads), ua, ub))
pair("np1", "np2", "mpi")
pair("workers1", "workers2", "threads")
res["same_best"] = len(bests) == 1
res["best"] = runs["np1"][0]["best"]
print(f"# weft tune scaling 1 -> 2, {cpu}, {cores} cores; {mpirun} -np 1|2 weft {job}")
print("| runner | 1: wall (median) | 2: wall (median) | CPU 1 / 2 | cores used 1 / 2 | speedup | efficiency | per repeat | load average |")
print("|---|---|---|---|---|---|---|---|---|")
for label, ta, tb, ca, cb, sp, eff, per, lo, hi, ua, ub in rows:
    name = "MPI, -np 1 / -np 2" if label == "mpi" else "threads, --workers 1 / 2"
    print(f"| {name} | {ta:.2f} s | {tb:.2f} s | {ca:.2f} / {cb:.2f} s | {ua:.2f} / {ub:.2f} | {sp:.2f}x | "
          f"{100 * eff:.0f}% | {' '.join(f'{p:.2f}' for p in per)} | {lo:.1f}-{hi:.1f} |")
for n in ("np1", "np2"):
    if runs.get(n) and "busy_fraction" in runs[n][0]:
        bf = statistics.median(r["busy_fraction"] for r in runs[n])
        sw = statistics.median(r["search_wall_s"] for r in runs[n])
        cc = statistics.median(r["coordinator_cpu_s"] for r in runs[n])
        res[n + "_median"] = {"busy_fraction": bf, "search_wall_s": sw, "coordinator_cpu_s": cc}
        print(f"{n}: ranks busy {100 * bf:.1f}% of the search's {sw:.2f} s; coordinator CPU {cc:.3f} s")
if "mpi" in res and (res["mpi"]["cores_used_1"] < 0.9 or res["mpi"]["cores_used_2"] < 1.7):
    print("WARNING: the runs did not get the cores they could use (1 rank under 0.9 of a core, or "
          "2 ranks under 1.7 cores): the machine was busy, so the wall ratio shows its share, "
          "not weft's scaling; run again when it is quiet")
print(f"best {res['best']:.0f}; the same best and the same convergence in every run: "
      f"{'yes' if res['same_best'] else 'NO'}")
text = json.dumps(res, indent=1)
print(text)
if out:
    open(out, "w").write(text + "\n")
sys.exit(0 if res["same_best"] else 1)
EOF
