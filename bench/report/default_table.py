# SPDX-License-Identifier: GPL-2.0
"""Whether a scheduler may be the default of rotational single-queue
devices: issue 33 asks that it lose no more than 5 % to mq-deadline in any
bench cell on any rotational profile.

Usage: python3 bench/report/default_table.py [--candidates "mq-as mq-cfq"]
           build/bench/<run> [build/bench/<run> ...]

For every cell of the runs measured on a queue the guest reported
rotational, every metric and thread count where a candidate and
mq-deadline ran together: the candidate's ratio to mq-deadline, turned so
that below 1 is a loss (mq-deadline's value over the candidate's for
latencies and times), its 95 % interval (report.py's), and the verdict:
"holds" when the ratio is at least 0.95 beyond the interval, "loses" when
below it beyond the interval, "within noise" when the interval holds 0.95.
Prints one markdown table per candidate, its losses first.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (needs the sys.path entry above)

PROG = "default_table.py"
BASELINE = "mq-deadline"
DEFAULT_CANDIDATES = ("mq-as", "mq-cfq")
LOSS_LIMIT = 0.95
HOLDS, LOSES = "holds", "loses"
# report.verdict() speaks of targets; here a target met is a default kept.
VERDICT_WORDS = {report.MET: HOLDS, report.MISSED: LOSES,
                 report.WITHIN_NOISE: report.WITHIN_NOISE}
ORDER = (LOSES, report.WITHIN_NOISE, HOLDS)


def rotational_cells(run_dir):
    """report.aggregate() of the run's measurements on rotational queues."""
    records, _ = report.load_records(report.results_path(run_dir))
    spinning = [rec for rec in records if rec.get("rotational") == 1]
    return report.aggregate(spinning, BASELINE) if spinning else []


def oriented_ratio(metric, stats, candidate):
    """The candidate's ratio to the baseline, below 1 a loss, with its
    interval; None when either was not measured or measured 0."""
    if candidate not in stats or BASELINE not in stats:
        return None
    mine, base = stats[candidate]["mean"], stats[BASELINE]["mean"]
    if report.is_lower_better(metric):
        mine, base = base, mine
    if base == 0:
        return None
    ratio = mine / base
    return ratio, report.interval(ratio, stats[candidate], stats[BASELINE])


def cell_rows(run, cell, candidate):
    """The table rows of one cell for @candidate."""
    rows = []
    for metric, info in sorted(cell["metrics"].items()):
        for row in info["rows"]:
            found = oriented_ratio(metric, row["schedulers"], candidate)
            if found is None:
                continue
            ratio, bounds = found
            verdict = report.verdict(ratio, LOSS_LIMIT, False, bounds)
            rows.append({"run": run, "cell": cell["cell"],
                         "profile": cell["profile"], "disk": cell["disk"],
                         "threads": row["threads"], "metric": metric,
                         "ratio": ratio, "interval": bounds,
                         "verdict": VERDICT_WORDS[verdict]})
    return rows


def table_rows(run_dirs, candidate):
    """Every row of @candidate over @run_dirs, losses first, worst first."""
    rows = []
    for run_dir in run_dirs:
        run = os.path.basename(os.path.normpath(run_dir))
        for cell in rotational_cells(run_dir):
            rows.extend(cell_rows(run, cell, candidate))
    rows.sort(key=lambda row: (ORDER.index(row["verdict"]), row["ratio"]))
    return rows


def format_ratio(row):
    low_high = row["interval"]
    if low_high is None:
        return f"{row['ratio']:.2f}x (one run)"
    return f"{row['ratio']:.2f}x ({low_high[0]:.2f}-{low_high[1]:.2f})"


def candidate_section(candidate, rows):
    """The markdown table of one candidate, with its count of losses."""
    losses = sum(row["verdict"] == LOSES for row in rows)
    lines = [f"## {candidate} against {BASELINE}", "",
             f"{len(rows)} figures, {losses} lose more than "
             f"{round((1 - LOSS_LIMIT) * 100)} % beyond their interval.", ""]
    if not rows:
        return lines
    lines += ["| run | cell | profile | disk | threads | metric | "
              f"{candidate} / {BASELINE} (95 % CI) | verdict |",
              "|---|---|---|---|---:|---|---:|---|"]
    for row in rows:
        lines.append(
            f"| {row['run']} | {row['cell']} | {row['profile']} | "
            f"{row['disk']} | {report.format_threads(row['threads'])} | "
            f"{row['metric']} | {format_ratio(row)} | {row['verdict']} |")
    return lines + [""]


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog=PROG, description="Tabulate default-scheduler candidates "
        f"against {BASELINE} on rotational queues.")
    parser.add_argument("run_dirs", nargs="+", metavar="run_dir",
                        help="build/bench/<run> (holds results.jsonl)")
    parser.add_argument("--candidates", default=" ".join(DEFAULT_CANDIDATES),
                        help="schedulers to judge, space-separated "
                        "(default: %(default)s)")
    args = parser.parse_args(argv)
    args.candidates = args.candidates.split()
    if not args.candidates:
        parser.error("--candidates names no scheduler")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    lines = ["# Default scheduler of rotational single-queue devices", ""]
    try:
        for candidate in args.candidates:
            lines += candidate_section(candidate,
                                       table_rows(args.run_dirs, candidate))
    except (report.ReportError, OSError) as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
