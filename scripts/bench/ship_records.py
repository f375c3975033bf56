#!/usr/bin/env python3
"""Keeps the best valid record of each workload and target from tuning databases: the shipped
default records (runtime/tune/records/*.jsonl) that `weft run` uses when no --tune-db is given.

  python3 scripts/bench/ship_records.py DB.jsonl [DB2.jsonl ...] > runtime/tune/records/X.jsonl
"""
import json
import sys


def key(r):
    w, t = r["workload"], r["target"]
    return (w["op"], json.dumps(w["shape"], sort_keys=True), t["kind"], t["config"], t["platform"])


best = {}
for path in sys.argv[1:]:
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            r = json.loads(line)
            if r.get("error") or r.get("stopped_early"):
                continue
            k = key(r)
            if k not in best or r["value"] < best[k]["value"]:
                best[k] = r
for k in sorted(best):
    print(json.dumps(best[k], separators=(",", ":")))
