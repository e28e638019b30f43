#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Mean per measurement of mq-cfq's slices by how they ended, per kernel.

Reads the results.jsonl of a make bench or make ab run (the records'
sched_slices, from the scheduler's sched/slices debugfs file) and prints,
for each cell and scheduler label, one row per kind of slice ("sync
slice", "async sync", ...) with each kernel's mean slices, milliseconds
used and requests dispatched: where two kernels' figures differ, which
slices changed.  Kernels are make ab's sides, else the series commits.
"""
import argparse
import sys
from collections import defaultdict

import results

COUNTERS = ("slices", "used_ms", "dispatched")


def kernel_of(record):
    return record.get("ab") or record.get("series", "?")


def means(records):
    """{(cell, label): {kernel: {kind: [mean per counter]}}}."""
    runs = defaultdict(lambda: defaultdict(list))
    for r in records:
        if "sched_slices" in r:
            runs[(r["cell"], r["scheduler"])][kernel_of(r)].append(
                r["sched_slices"])
    table = {}
    for key, kernels in runs.items():
        table[key] = {}
        for kernel, reps in kernels.items():
            kinds = sorted({kind for rep in reps for kind in rep})
            table[key][kernel] = {
                kind: [sum(rep.get(kind, {}).get(c, 0) for rep in reps)
                       / len(reps) for c in COUNTERS] for kind in kinds}
    return table


def print_table(table):
    for (cell, label), kernels in sorted(table.items()):
        names = sorted(kernels)
        print(f"{cell} {label}: per kernel ({' | '.join(names)}), "
              "slices, ms used and requests dispatched")
        kinds = sorted({kind for k in names for kind in kernels[k]})
        for kind in kinds:
            cells = ["%7.1f %8.0f %8.1f" % tuple(kernels[k].get(kind, [0] * 3))
                     for k in names]
            print(f"  {kind:16} " + " | ".join(cells))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", help="a run directory holding results.jsonl")
    args = ap.parse_args()
    table = means(results.read_run(args.run, "sched-slices"))
    if not table:
        sys.exit(f"sched-slices: no record in {args.run}/results.jsonl has "
                 "sched_slices (runs before the guest recorded them, or no "
                 "mq-cfq)")
    print_table(table)


if __name__ == "__main__":
    main()
