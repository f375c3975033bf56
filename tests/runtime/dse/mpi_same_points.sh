#!/usr/bin/env bash
# `mpirun weft dse` measures the same points as the thread pool: a sweep of four points (two
# groups: two GEMM shapes of `tiny`, each at two clocks) run with --jobs 2 and under
# `mpirun -np 2` and `-np 3` (more ranks than groups: one worker rank gets none and must still
# be stopped) gives equal records (but for the seconds each took), and the MPI run's database
# holds every point once (docs/codesign.md, "Design-space exploration").
#   mpi_same_points.sh MPIRUN WEFT WORKDIR
set -euo pipefail
mpirun=$1 weft=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
sweep=(dse layers --layers dense:32x32x32,dense:16x64x32 --base tiny --param block_out=4,8
       --param clock_mhz=100,200 --quiet)
"$weft" "${sweep[@]}" --jobs 2 --json "$dir/threads.json" >/dev/null
for np in 2 3; do
  "$mpirun" --allow-run-as-root --oversubscribe --bind-to none -np $np "$weft" "${sweep[@]}" \
    --jobs 1 --db "$dir/mpi$np.jsonl" --json "$dir/mpi$np.json" >/dev/null
done
/usr/bin/python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
def points(f):
    ps = json.load(open(f))["points"]
    for p in ps:
        p.pop("seconds", None)
    return ps
base = points(d + "/threads.json")
assert len(base) == 4 and all(p["status"] == "ok" for p in base), base
for np in (2, 3):
    assert points(d + "/mpi%d.json" % np) == base, "np %d differs" % np
    keys = [json.loads(l)["key"] for l in open(d + "/mpi%d.jsonl" % np)]
    assert len(keys) == 4 and len(set(keys)) == 4, keys
print("the same 4 points on 1, 2 and 3 ranks")
PY
