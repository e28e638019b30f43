#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The ratios of a "make ab" run: every figure of kernel B against the
same figure of kernel A (same cell, profile, disk, thread count and
scheduler), with its 95 % interval from the report's statistics.

Reads RUN/results.jsonl (bench records tagged "ab": "A" or "B"), prints
one line per figure and writes RUN/ab-report.md, and RUN/ab-ratios.png
where gnuplot is installed."""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "report"))
import report  # noqa: E402  (needs the sys.path entry above)


def load(path):
    """(figure key, side) -> values; a figure key names cell, profile,
    disk, threads, scheduler and metric."""
    values = {}
    with open(path, encoding="utf-8") as results:
        for line in results:
            record = json.loads(line)
            if record.get("ab") not in ("A", "B") or "failed" in record:
                continue
            where = tuple(str(record.get(key)) for key in
                          ("cell", "profile", "disk", "threads", "scheduler"))
            for metric, value in record.get("metrics", {}).items():
                values.setdefault((where + (metric,), record["ab"]),
                                  []).append(value)
    return values


def stats_of(values):
    mean, cv_pct = report.describe(values)
    return {"mean": mean, "cv_pct": cv_pct, "n": len(values)}


def ratios(values):
    """One entry per figure measured on both sides and nonzero on A."""
    rows = []
    for (key, side), a_values in sorted(values.items()):
        if side != "A" or (key, "B") not in values:
            continue
        a, b = stats_of(a_values), stats_of(values[(key, "B")])
        if a["mean"] == 0:
            continue
        ratio = b["mean"] / a["mean"]
        rows.append({"key": key, "a": a, "b": b, "ratio": ratio,
                     "interval": report.interval(ratio, b, a)})
    return rows


def verdict(row):
    """Which kernel the figure favours, "same" when the interval holds 1,
    "untold" without an interval (a single run of a side)."""
    if row["interval"] is None:
        return "untold"
    low, high = row["interval"]
    if low <= 1 <= high:
        return "same"
    better_b = (row["ratio"] < 1) == report.is_lower_better(row["key"][-1])
    return "B better" if better_b else "A better"


def line_of(row):
    cell, profile, disk, threads, scheduler, metric = row["key"]
    at = "" if threads == "None" else f" at {threads}"
    bounds = row["interval"]
    ci = (f" (95% CI {bounds[0]:.2f}-{bounds[1]:.2f})" if bounds
          else " (one run each: no interval)")
    return (f"{cell} [{profile}/{disk}]{at} {scheduler} {metric}: "
            f"A {report.format_value(row['a']['mean'])}, "
            f"B {report.format_value(row['b']['mean'])}, "
            f"B/A {row['ratio']:.2f}x{ci}: {verdict(row)}")


def plot(rows, run):
    """Ratios with their intervals, one point per figure."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot or not rows:
        return None
    data = os.path.join(run, "ab-ratios.dat")
    with open(data, "w", encoding="utf-8") as out:
        for n, row in enumerate(rows):
            low, high = row["interval"] or (row["ratio"], row["ratio"])
            label = " ".join(k for k in row["key"] if k != "None")
            out.write(f'{n} {row["ratio"]} {low} {high} "{label}"\n')
    png = os.path.join(run, "ab-ratios.png")
    script = (f"set terminal {report.gnuplot_terminal(gnuplot)} size 1000,"
              f"{200 + 22 * len(rows)}\n"
              f"set output {report.gp_string(png)}\n"
              "set termoption noenhanced\n"
              "set title 'B/A with 95% intervals (1 = no change)'\n"
              "set logscale x 2\nset grid xtics\nunset key\n"
              f"set yrange [-1:{len(rows)}]\nset arrow from 1,-1 to 1,"
              f"{len(rows)} nohead dt 2\n"
              f"plot {report.gp_string(data)} using 2:1:3:4:ytic(5) "
              "with xerrorbars pt 7\n")
    done = subprocess.run([gnuplot], input=script, text=True,
                          capture_output=True, check=False)
    if done.returncode:
        print(f"ab-report: gnuplot failed: {done.stderr.strip()}",
              file=sys.stderr)
        return None
    return png


def main(argv):
    if len(argv) != 2 or not os.path.isfile(os.path.join(argv[1],
                                                         "results.jsonl")):
        print("usage: ab-report.py build/ab/runs/<time> (holding "
              "results.jsonl)", file=sys.stderr)
        return 2
    run = argv[1]
    rows = ratios(load(os.path.join(run, "results.jsonl")))
    if not rows:
        print(f"ab-report: no figure measured on both A and B in {run}",
              file=sys.stderr)
        return 1
    lines = [line_of(row) for row in rows]
    revisions = ""
    if os.path.isfile(os.path.join(run, "revisions")):
        with open(os.path.join(run, "revisions"), encoding="utf-8") as f:
            revisions = "".join(f"- {line}" for line in f)
    png = plot(rows, run)
    with open(os.path.join(run, "ab-report.md"), "w", encoding="utf-8") as md:
        md.write(f"# A/B run {os.path.basename(os.path.normpath(run))}\n\n"
                 f"{revisions}\n" + "".join(f"- {line}\n" for line in lines))
        if png:
            md.write(f"\n![B/A ratios]({os.path.basename(png)})\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
