#!/usr/bin/env python3
"""Draws the hit-ratio comparison (the TSV libcachesim-compare.py --tsv wrote) as a PNG: one
panel per budget, a group of bars per trace, one bar per algorithm (object miss ratio).

Usage: plot.py COMPARISON.tsv OUTPUT.png        Needs: pip install matplotlib
"""
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ORDER = ["FIFO", "LRU", "CLOCK", "SIEVE", "S3-FIFO", "ARC", "W-TinyLFU", "Belady",
         "ModelStore oldestWritten", "ModelStore leastRecentlyUsed"]


def main():
    source, output = sys.argv[1], sys.argv[2]
    rows = defaultdict(dict)  # (budget) -> {(trace, algorithm): miss}
    traces = []
    with open(source) as lines:
        for line in lines:
            trace, budget, algorithm, object_miss, _ = line.rstrip("\n").split("\t")
            rows[float(budget)][(trace, algorithm)] = float(object_miss) * 100
            if trace not in traces:
                traces.append(trace)
    budgets = sorted(rows)
    figure, axes = plt.subplots(len(budgets), 1, figsize=(13, 4.2 * len(budgets)))
    width = 0.8 / len(ORDER)
    colors = plt.get_cmap("tab10")
    for axis, budget in zip(axes, budgets):
        for index, algorithm in enumerate(ORDER):
            values = [rows[budget].get((trace, algorithm), 0) for trace in traces]
            positions = [t + (index - len(ORDER) / 2 + 0.5) * width for t in range(len(traces))]
            hatch = "//" if algorithm.startswith("ModelStore") else None
            axis.bar(positions, values, width, label=algorithm, color=colors(index % 10), hatch=hatch,
                     edgecolor="black" if hatch else None, linewidth=0.4)
        axis.set_xticks(range(len(traces)))
        axis.set_xticklabels(traces)
        axis.set_ylabel("object miss ratio (%)")
        axis.set_title(f"cache of {budget * 100:.0f} % of the footprint (lower is better)")
        axis.grid(axis="y", alpha=0.3)
    axes[0].legend(ncol=5, fontsize=8, loc="upper right")
    figure.tight_layout()
    figure.savefig(output, dpi=110)


if __name__ == "__main__":
    main()
