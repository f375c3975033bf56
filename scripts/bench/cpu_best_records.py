#!/usr/bin/env python3
"""The best valid record per (workload, target) of a tuning database, as JSON lines: what
runtime/tune/records/cpu_<isa>.jsonl ships.  usage: cpu_best_records.py DB > OUT.jsonl"""
import json
import sys

if len(sys.argv) != 2:
    sys.exit(__doc__)
best = {}
with open(sys.argv[1]) as f:
    for n, line in enumerate(f, 1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
        except json.JSONDecodeError as e:
            sys.exit(f"{sys.argv[1]}:{n}: {e}")
        if r.get("error"):
            continue
        key = (json.dumps(r["workload"], sort_keys=True), json.dumps(r["target"], sort_keys=True))
        if key not in best or r["value"] < best[key]["value"]:
            best[key] = r
for r in best.values():
    print(json.dumps(r, sort_keys=True))
