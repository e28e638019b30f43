#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Ratios of scheduler labels to a baseline label within one bench run.

Reads a make bench run's results.jsonl and prints, for each cell, profile
and thread count, each label's mean of each named metric over its
repetitions as a ratio to the baseline label's, with the 95 % interval of
report.py (log scale, Welch's t): the figures a note quotes for "x
mq-deadline in the same run".  Failed measurements are left out.  A make
ab run (build/ab/runs/<time>) holds two kernels' figures: --side A or B
takes one kernel's.
"""
import argparse
import os
import sys
from collections import defaultdict

import results
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "report"))
import report  # noqa: E402


def values_by_group(records, metrics):
    """{(cell, profile, threads, metric): {label: [values]}}."""
    groups = defaultdict(lambda: defaultdict(list))
    for r in records:
        if "failed" in r:
            continue
        for metric in metrics:
            value = r.get("metrics", {}).get(metric)
            if isinstance(value, (int, float)):
                key = (r["cell"], r["profile"], r["threads"], metric)
                groups[key][r["scheduler"]].append(value)
    return groups


def stats_of(values):
    mean, cv_pct = report.describe(values)
    return {"mean": mean, "cv_pct": cv_pct, "n": len(values)}


def ratio_text(label, values, base):
    """'label R x (low-high)', or without the interval for one value."""
    stats = stats_of(values)
    if not base["mean"]:
        return f"{label} n/a (baseline mean 0)"
    ratio = stats["mean"] / base["mean"]
    bounds = report.interval(ratio, stats, base)
    if bounds is None:
        return f"{label} {ratio:.2f}x"
    return f"{label} {ratio:.2f}x ({bounds[0]:.2f}-{bounds[1]:.2f})"


def lines(records, baseline, labels, metrics):
    groups = values_by_group(records, metrics)
    for (cell, profile, threads, metric), by_label in sorted(
            groups.items(), key=lambda item: tuple(map(str, item[0]))):
        if baseline not in by_label:
            continue
        base = stats_of(by_label[baseline])
        ratios = [ratio_text(label, by_label[label], base)
                  for label in labels if label in by_label]
        yield (f"{cell} {profile} threads={threads} {metric}: {baseline} "
               f"{base['mean']:.1f}; " + "; ".join(ratios))


def of_side(records, side):
    """The records of make ab side @side; all of them for None, which a
    make ab run, holding two kernels' figures, refuses."""
    if side is None:
        if any("ab" in r for r in records):
            sys.exit("label-ratios: a make ab run holds two kernels' "
                     "figures: give --side A or B")
        return records
    chosen = [r for r in records if r.get("ab") == side]
    if not chosen:
        sys.exit(f"label-ratios: no side {side} records: --side is for "
                 "the runs of make ab")
    return chosen


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="build/bench/<run>")
    parser.add_argument("baseline", help="the label the others divide by")
    parser.add_argument("labels", help="comma-separated labels")
    parser.add_argument("metrics", help="comma-separated metrics")
    parser.add_argument("--side", choices=("A", "B"),
                        help="of a make ab run, only this kernel's figures")
    args = parser.parse_args()
    records = of_side(results.read_run(args.run, "label-ratios"), args.side)
    out = list(lines(records, args.baseline, args.labels.split(","),
                     args.metrics.split(",")))
    if not out:
        sys.exit(f"label-ratios: no {args.baseline} figures of "
                 f"{args.metrics} in {args.run}/results.jsonl")
    print("\n".join(out))


if __name__ == "__main__":
    main()
