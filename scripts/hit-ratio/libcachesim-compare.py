#!/usr/bin/env python3
"""Replays the hit-ratio traces (make-traces.py) through libCacheSim's LRU, FIFO, CLOCK, SIEVE,
S3-FIFO, ARC, W-TinyLFU and Belady (the offline optimum), at byte budgets of 1 % and 10 % of each
trace's footprint (the bytes of its distinct keys), and prints their miss ratios beside ModelStore's
(the JSON lines `modelstore-bench hit-ratio` wrote to MODELSTORE_RESULTS, if given).

Output: a table for people, and with --tsv FILE one line per trace, budget and algorithm
("trace budget algorithm object_miss byte_miss"), which plot.py reads.

Usage: libcachesim-compare.py TRACE_DIR [MODELSTORE_RESULTS] [--tsv FILE]
Needs: pip install libcachesim numpy
"""
import argparse
import glob
import json
import os

import libcachesim as lcs
import numpy as np

ALGORITHMS = [
    ("LRU", lcs.LRU), ("FIFO", lcs.FIFO), ("CLOCK", lcs.Clock), ("SIEVE", lcs.Sieve), ("S3-FIFO", lcs.S3FIFO),
    ("ARC", lcs.ARC), ("W-TinyLFU", lcs.WTinyLFU), ("Belady", lcs.Belady),
]
ONLINE = [name for name, _ in ALGORITHMS if name != "Belady"]
BUDGETS = [0.01, 0.10]
RECORD = np.dtype([("t", "<u4"), ("id", "<u8"), ("size", "<u4"), ("next", "<i8")], align=False)


def footprint(path):
    data = np.fromfile(path, dtype=RECORD)
    _, first = np.unique(data["id"], return_index=True)
    return int(data["size"][first].sum())


def simulate(path, algorithm, budget):
    reader = lcs.TraceReader(path, lcs.TraceType.ORACLE_GENERAL_TRACE)
    cache = algorithm(cache_size=budget)
    object_miss, byte_miss = cache.process_trace(reader)
    return object_miss, byte_miss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("traces")
    parser.add_argument("modelstore", nargs="?")
    parser.add_argument("--tsv")
    options = parser.parse_args()
    results = {}  # (trace, budget) -> {algorithm: (object, byte)}
    if options.modelstore:
        with open(options.modelstore) as lines:
            for line in lines:
                if line.strip():
                    row = json.loads(line)
                    results.setdefault((row["trace"], row["budget"]), {})["ModelStore " + row["policy"]] = (
                        row["objectMissRatio"], row["byteMissRatio"])
    traces = sorted(glob.glob(os.path.join(options.traces, "*.oracle")))
    for path in traces:
        name = os.path.basename(path)[: -len(".oracle")]
        total = footprint(path)
        for budget in BUDGETS:
            row = results.setdefault((name, budget), {})
            for label, algorithm in ALGORITHMS:
                row[label] = simulate(path, algorithm, int(total * budget))
    tsv = open(options.tsv, "w") if options.tsv else None
    columns = [label for label, _ in ALGORITHMS] + ["ModelStore leastRecentlyUsed", "ModelStore oldestWritten"]
    short = {"ModelStore leastRecentlyUsed": "MS-LRU", "ModelStore oldestWritten": "MS-oldest"}
    print("object miss ratio, % (byte miss ratio in the TSV); best online marked *")
    print(f"{'trace':<16}{'budget':>7} " + "".join(f"{short.get(c, c):>10}" for c in columns) + "   MS-LRU - best")
    for (name, budget), row in sorted(results.items()):
        best = min(row[c][0] for c in ONLINE if c in row)
        cells = []
        for column in columns:
            if column not in row:
                cells.append(f"{'-':>10}")
                continue
            value = row[column][0] * 100
            mark = "*" if column in ONLINE and row[column][0] == best else " "
            cells.append(f"{value:>9.2f}{mark}")
            if tsv:
                tsv.write(f"{name}\t{budget}\t{column}\t{row[column][0]:.5f}\t{row[column][1]:.5f}\n")
        gap = (row["ModelStore leastRecentlyUsed"][0] - best) * 100 if "ModelStore leastRecentlyUsed" in row else float("nan")
        print(f"{name:<16}{budget * 100:>6.0f}% " + "".join(cells) + f"   {gap:+.2f}")
    if tsv:
        tsv.close()


if __name__ == "__main__":
    main()
