#!/usr/bin/env bash
# Two `mpirun weft tune` jobs (two ranks each) writing one database at once lose no record and
# tear no line (docs/reliability.md): each job's records, counted by its seed, are as many as
# the same job writes alone.
#   two_mpi_jobs.sh MPIRUN WEFT WORKDIR
set -euo pipefail
mpirun=$1 weft=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
job() {  # SEED DB
  "$mpirun" --allow-run-as-root --oversubscribe --bind-to none -np 2 "$weft" tune dense --M 16 \
    --N 64 --K 128 --config gemm8x8 --per-round 2 --trials 6 --quiet --seed "$1" --db "$2" >/dev/null
}
job 3 "$dir/a.jsonl"
job 4 "$dir/b.jsonl"
job 3 "$dir/ab.jsonl" & job 4 "$dir/ab.jsonl" & wait
count() {  # FILE SEED: records of that seed; a torn line fails the script
  /usr/bin/python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    n += json.loads(line)["seed"] == int(sys.argv[2])
print(n)' "$1" "$2"
}
a=$(count "$dir/a.jsonl" 3) b=$(count "$dir/b.jsonl" 4)
a2=$(count "$dir/ab.jsonl" 3) b2=$(count "$dir/ab.jsonl" 4)
total=$(wc -l < "$dir/ab.jsonl")
echo "alone: $a + $b records; at once: $a2 + $b2 of $total lines"
[ "$a" -gt 0 ] && [ "$a2" -eq "$a" ] && [ "$b2" -eq "$b" ] && [ "$total" -eq $((a + b)) ]
echo "two MPI jobs on one database: no record lost"
