#!/usr/bin/env python3
"""Generates the hit-ratio benchmark's request traces, reproducibly from a seed.

Each trace is a sequence of requests (key id, size in bytes); a key's size never changes. Written
twice per trace into DIR:
  NAME.csv     "id,size" per line, which ModelStore's benchmark replays (modelstore-bench hit-ratio)
  NAME.oracle  libCacheSim's oracleGeneral binary format (timestamp u32, id u64, size u32, next
               access i64, little-endian, packed), which scripts/hit-ratio/libcachesim-compare.py replays

Traces (REQUESTS requests over KEYS keys, defaults 1,000,000 and 100,000):
  zipf-0.8, zipf-1.0, zipf-1.2  Zipf popularity with that alpha, ranks shuffled over the ids
  zipf-1.0-scan                 zipf-1.0 with one pass over 50,000 cold keys (read once each) in the middle
  zipf-1.0-shift                zipf-1.0 whose popularity ranks are reshuffled halfway (a new popular set)
Sizes: lognormal, median 400 bytes, sigma 1.0, clamped to 64 B ... 32 KiB (a cache of JSON models).

Usage: make-traces.py DIR [--requests N] [--keys N] [--seed S]
"""
import argparse
import os

import numpy as np


def zipf_ranks(rng, alpha, keys, count):
    weights = 1.0 / np.power(np.arange(1, keys + 1, dtype=np.float64), alpha)
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    return np.searchsorted(cdf, rng.random(count), side="left")


def write(directory, name, ids, sizes_by_id):
    ids = np.asarray(ids, dtype=np.int64)
    sizes = sizes_by_id[ids]
    with open(os.path.join(directory, name + ".csv"), "w") as out:
        for key, size in zip(ids.tolist(), sizes.tolist()):
            out.write(f"{key},{size}\n")
    # Next access (request index of the same id's next request, -1 for none), for Belady.
    next_access = np.full(len(ids), -1, dtype=np.int64)
    last_seen = {}
    for index in range(len(ids) - 1, -1, -1):
        key = int(ids[index])
        next_access[index] = last_seen.get(key, -1)
        last_seen[key] = index
    record = np.dtype([("t", "<u4"), ("id", "<u8"), ("size", "<u4"), ("next", "<i8")], align=False)
    data = np.zeros(len(ids), dtype=record)
    data["t"] = np.arange(len(ids), dtype=np.uint32)
    data["id"] = ids + 1  # libCacheSim treats id 0 specially in places
    data["size"] = sizes
    data["next"] = next_access
    data.tofile(os.path.join(directory, name + ".oracle"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("directory")
    parser.add_argument("--requests", type=int, default=1_000_000)
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=38)
    options = parser.parse_args()
    os.makedirs(options.directory, exist_ok=True)
    rng = np.random.default_rng(options.seed)
    keys, requests = options.keys, options.requests
    cold = keys // 2  # the scan's cold keys: ids keys ..< keys + cold
    sizes_by_id = np.clip(rng.lognormal(np.log(400), 1.0, keys + cold), 64, 32 << 10).astype(np.int64)
    permutation = rng.permutation(keys)
    for alpha in (0.8, 1.0, 1.2):
        ids = permutation[zipf_ranks(rng, alpha, keys, requests)]
        write(options.directory, f"zipf-{alpha}", ids, sizes_by_id)
    base = permutation[zipf_ranks(rng, 1.0, keys, requests)]
    half = requests // 2
    scan = np.arange(keys, keys + cold)
    write(options.directory, "zipf-1.0-scan", np.concatenate([base[:half], scan, base[half:]]), sizes_by_id)
    shifted = rng.permutation(keys)[zipf_ranks(rng, 1.0, keys, requests - half)]
    write(options.directory, "zipf-1.0-shift", np.concatenate([base[:half], shifted]), sizes_by_id)


if __name__ == "__main__":
    main()
