# SPDX-License-Identifier: GPL-2.0
"""Turn a benchmark run's results.jsonl into report.md, summary.json and plots.

Usage: python3 bench/report/report.py build/bench/<run> [--baseline NAME]

Each line of results.jsonl is one measurement (one repetition of one cell,
thread count and scheduler).  Repetitions are averaged; the coefficient of
variation tells whether the mean can be trusted, and %diff compares every
scheduler with a baseline scheduler, in the style of the tables posted to
the kernel mailing lists.  When a candidate scheduler (mq-cfq, mq-as)
ran, its targets are judged against the stock schedulers of the same
run, printed and put first in the report.  Standard library only, plus gnuplot for the
PNGs.
"""

import argparse
import functools
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

PROG = "report.py"
DEFAULT_BASELINE = "mq-deadline"
HIGH_CV_PCT = 5.0
HIGH_CV_MARK = "!"
INCOMPLETE_MARK = "*"
MISSING = "-"
GNUPLOT_TIMEOUT_S = 60


class ReportError(Exception):
    """A problem that makes the whole report impossible (exit status 1)."""


def warn(message):
    """Warnings go to stderr: stdout is the targets' verdicts (when the
    candidate ran) and the report path on its last line."""
    print(f"{PROG}: warning: {message}", file=sys.stderr)


# ---------------------------------------------------------------- metrics

def is_lower_better(metric):
    """Latencies (*_ms), durations (seconds*), readahead corrections
    (ra_*: thrashing, shrunk or deferred windows), refaults and bytes read
    from the disk per byte used improve when they shrink."""
    return (metric.endswith("_ms") or
            metric.startswith(("seconds", "ra_", "workingset_refault",
                               "read_amplification")))


def better_arrow(metric):
    return "↓ better" if is_lower_better(metric) else "↑ better"


def metric_unit(metric):
    """Axis/column unit guessed from the metric name; '' if unknown."""
    name = metric.lower()
    if "kbps" in name:
        return "KB/s"
    if "mbps" in name:
        return "MB/s"
    if "iops" in name:
        return "IOPS"
    if name.endswith("_ms"):
        return "ms"
    if name.endswith("_us"):
        return "us"
    if name.startswith("seconds") or name.endswith("_s"):
        return "s"
    if name.endswith("_kib"):
        return "KiB"
    return ""


# ------------------------------------------------------------- formatting

def format_value(value):
    """Integers for large values, about three significant digits below 100."""
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.3g}"


def is_noisy(cv_pct):
    """Judge the CV as printed, so '5.0%' never carries the marker."""
    return cv_pct is not None and round(cv_pct, 1) > HIGH_CV_PCT


def format_cv(cv_pct):
    return MISSING if cv_pct is None else f"{cv_pct:.1f}%"


def format_diff(diff_pct):
    """Whole percent: with run-to-run noise of a few %, decimals would lie."""
    if diff_pct is None:
        return ""
    text = f"{diff_pct:+.0f}%"
    return "+0%" if text == "-0%" else text


def format_threads(threads):
    if threads is None:
        return MISSING
    return f"{threads} thread" + ("" if threads == 1 else "s")


def safe_filename_part(text):
    """Cell names become file names: keep them portable and unambiguous."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", str(text)).strip("_") or "x"


# ----------------------------------------------------------------- input

def results_path(run_dir):
    return os.path.join(run_dir, "results.jsonl")


def parse_threads(value):
    """threads may be absent or null for single-configuration cells."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError("threads is a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    raise ValueError(f"threads {value!r} is not an integer")


def is_number(value):
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def parse_record(line):
    """Validate one JSON line; raise ValueError saying what is wrong."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        raise ValueError(f"not valid JSON ({err.msg})") from None
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    for key in ("cell", "scheduler"):
        if not isinstance(record.get(key), str) or not record[key]:
            raise ValueError(f"missing or empty \"{key}\"")
    if not isinstance(record.get("metrics"), dict):
        raise ValueError("missing \"metrics\" object")
    record["threads"] = parse_threads(record.get("threads"))
    bad = [k for k, v in record["metrics"].items() if not is_number(v)]
    if bad:
        raise ValueError(f"non-numeric metric(s) {', '.join(sorted(bad))}")
    if not record["metrics"]:
        raise ValueError("\"metrics\" is empty")
    return record


def failed_measurement(line):
    """What collect.py recorded of a failed measurement ("cell scheduler
    rep N: reason"), or None when @line is not such a record."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return None
    if not isinstance(record, dict) or not isinstance(record.get("failed"),
                                                      str):
        return None
    where = " ".join(str(record[key]) for key in ("cell", "scheduler")
                     if key in record)
    if "rep" in record:
        where += f" rep {record['rep']}"
    return f"{where or 'unnamed measurement'}: {record['failed']}"


def load_records(path):
    """All well-formed measurements, and the failed ones' descriptions;
    malformed lines are skipped with a warning."""
    if not os.path.isfile(path):
        raise ReportError(f"no results file {path}")
    records, failures = [], []
    name = os.path.basename(path)
    with open(path, encoding="utf-8", errors="replace") as results:
        for number, line in enumerate(results, start=1):
            if not line.strip():
                continue
            failure = failed_measurement(line)
            if failure is not None:
                failures.append(failure)
                continue
            try:
                record = parse_record(line)
            except ValueError as err:
                warn(f"{name} line {number}: {err}; skipped")
                continue
            record["_line"] = number
            records.append(record)
    if not records:
        raise ReportError(f"no measurements in {path}")
    return records, failures


def is_incomplete(record):
    return record.get("complete", True) is False


# ------------------------------------------------------------ aggregation

def distinct(records, key):
    """Distinct values of a field, in first-seen order, ignoring absent ones."""
    seen = []
    for record in records:
        value = record.get(key)
        if value is not None and value not in seen:
            seen.append(value)
    return seen


def group_key(record):
    """The same cell on another disk or profile is a different experiment."""
    return (record["cell"], record.get("profile"), record.get("disk"))


def group_id(key, ambiguous):
    """File-name id: just the cell, unless the run holds it on several setups."""
    cell, profile, disk = key
    parts = [cell] + ([profile, disk] if ambiguous else [])
    return "-".join(safe_filename_part(p) for p in parts if p is not None)


def warn_repeated_reps(records):
    """A resumed run may record a repetition twice; say so, keep both."""
    first_line = {}
    for record in records:
        if record.get("rep") is None:
            continue
        key = (group_key(record), record["threads"], record["scheduler"],
               record["rep"])
        if key in first_line:
            warn(f"line {record['_line']} repeats rep {record['rep']} of "
                 f"{record['cell']}/{record['scheduler']}/threads="
                 f"{record['threads']} (first seen on line {first_line[key]}); "
                 "both are averaged")
        else:
            first_line[key] = record["_line"]


def collect_groups(records):
    """Nest measurements as group -> metric -> threads -> scheduler -> values."""
    groups = {}
    for record in records:
        key = group_key(record)
        group = groups.setdefault(key, {
            "cell": record["cell"], "profile": record.get("profile"),
            "disk": record.get("disk"),
            "title": record.get("title") or record["cell"],
            "schedulers": [], "metrics": {}})
        if record["scheduler"] not in group["schedulers"]:
            group["schedulers"].append(record["scheduler"])
        for metric, value in record["metrics"].items():
            rows = group["metrics"].setdefault(metric, {})
            point = rows.setdefault(record["threads"], {}).setdefault(
                record["scheduler"], {"values": [], "incomplete": False})
            point["values"].append(float(value))
            point["incomplete"] |= is_incomplete(record)
    return groups


def order_schedulers(groups, run_order):
    """Columns follow the run's first-seen scheduler order in every table."""
    for group in groups.values():
        group["schedulers"].sort(key=run_order.index)


def describe(values):
    """Mean and sample CV in percent (None when it cannot be computed)."""
    mean = statistics.fmean(values)
    cv_pct = None
    if len(values) >= 2 and mean != 0:
        cv_pct = statistics.stdev(values) / abs(mean) * 100.0
    return mean, cv_pct


def percent_diff(value, base):
    if base is None or base == 0:
        return None
    return (value - base) / abs(base) * 100.0


def best_schedulers(row, lower_better):
    """All schedulers sharing the best mean of a row (ties are possible)."""
    means = {name: stat["mean"] for name, stat in row.items()}
    target = min(means.values()) if lower_better else max(means.values())
    return [name for name, mean in means.items() if mean == target]


def threads_sort_key(threads):
    return (threads is not None, threads or 0)


def choose_baseline(schedulers, wanted):
    return wanted if wanted in schedulers else schedulers[0]


def summarize_metric(rows, schedulers, baseline, metric):
    """Per thread count: mean/CV/%diff for each scheduler, plus the winner."""
    summary = []
    for threads in sorted(rows, key=threads_sort_key):
        stats = {}
        for name in schedulers:
            point = rows[threads].get(name)
            if point is None:
                continue
            mean, cv_pct = describe(point["values"])
            stats[name] = {"mean": mean, "cv_pct": cv_pct,
                           "n": len(point["values"]),
                           "incomplete": point["incomplete"],
                           "values": point["values"]}
        base = stats.get(baseline, {}).get("mean")
        for name, stat in stats.items():
            stat["diff_pct"] = (None if name == baseline
                                else percent_diff(stat["mean"], base))
        summary.append({"threads": threads, "schedulers": stats,
                        "best": best_schedulers(stats, is_lower_better(metric))})
    return summary


def aggregate(records, wanted_baseline):
    """Everything the report, the plots and summary.json need, in order."""
    groups = collect_groups(records)
    order_schedulers(groups, distinct(records, "scheduler"))
    ambiguous_cells = {cell for cell in distinct(records, "cell")
                       if sum(1 for key in groups if key[0] == cell) > 1}
    cells = []
    for key, group in groups.items():
        baseline = choose_baseline(group["schedulers"], wanted_baseline)
        metrics = {}
        for metric, rows in group["metrics"].items():
            metrics[metric] = {
                "better": "lower" if is_lower_better(metric) else "higher",
                "unit": metric_unit(metric), "plot": None,
                "rows": summarize_metric(rows, group["schedulers"],
                                         baseline, metric)}
        cells.append({"id": group_id(key, key[0] in ambiguous_cells),
                      "cell": group["cell"], "title": group["title"],
                      "profile": group["profile"], "disk": group["disk"],
                      "baseline": baseline, "schedulers": group["schedulers"],
                      "metrics": metrics})
    return cells


def repetition_range(cells):
    counts = [stat["n"] for cell in cells for metric in cell["metrics"].values()
              for row in metric["rows"] for stat in row["schedulers"].values()]
    low, high = min(counts), max(counts)
    return str(low) if low == high else f"{low}-{high}"


def profile_rotational(records):
    """Profile -> the queue/rotational values the guest reported for it."""
    seen = {}
    for record in records:
        if "rotational" in record:
            values = seen.setdefault(str(record.get("profile")), [])
            if record["rotational"] not in values:
                values.append(record["rotational"])
    return seen


# A boot group whose disk model sent more than this share of its replies
# late by more than a tenth of their modelled time is flagged.
LATE_REPLIES_PCT = 1.0


def model_timing(records):
    """Per boot group served by the disk model: how late its replies
    were, and whether that is enough to flag the group's figures."""
    groups = {}
    for record in records:
        stats = record.get("model_replies")
        if not isinstance(stats, dict) or not stats.get("replies"):
            continue
        fs = f" ({record['fs']})" if record.get("fs") else ""
        written = (", labels that write read_ahead_kb"
                   if str(record.get("boot", "")).endswith("_written") else "")
        name = (f"{record.get('profile')} on {record.get('disk')}{fs}, "
                f"{record.get('mem_mib')} MiB{written}")
        late_pct = 100.0 * stats.get("late", 0) / stats["replies"]
        groups[name] = {"replies": stats["replies"], "late_pct": late_pct,
                        "mean_late_us": stats.get("mean_late_us"),
                        "worst_late_us": stats.get("worst_late_us"),
                        "flagged": late_pct > LATE_REPLIES_PCT}
    return groups


def timing_lines(timing):
    """One header line per group of model_timing()."""
    lines = []
    for name, group in timing.items():
        line = (f"- disk model, {name}: {group['late_pct']:.1f}% of "
                f"{group['replies']} replies late by more than a tenth of "
                f"their modelled time (mean lateness "
                f"{group['mean_late_us']} us, worst {group['worst_late_us']}"
                " us)")
        if group["flagged"]:
            line += (f" **over {LATE_REPLIES_PCT:g}%: the host could not "
                     "keep the model's time; read this group's figures "
                     "with care**")
        lines.append(line)
    return lines


def run_info(records, failures, run_dir, cells, baseline):
    runs = distinct(records, "run") or [os.path.basename(
        os.path.normpath(run_dir))]
    return {"run": ", ".join(map(str, runs)),
            "kernels": distinct(records, "kernel"),
            "series": distinct(records, "series"),
            "profiles": distinct(records, "profile"),
            "rotational": profile_rotational(records),
            "disks": distinct(records, "disk"),
            "mem_mib": distinct(records, "mem_mib"),
            "measurements": len(records),
            "incomplete_measurements": sum(map(is_incomplete, records)),
            "failed_measurements": failures,
            "model_timing": model_timing(records),
            "repetitions": repetition_range(cells),
            "baseline": baseline}


# ---------------------------------------------------------------- targets

CANDIDATE = "mq-cfq"
STOCK = ("none", "mq-deadline", "kyber", "bfq", "bfq-lowlat0")
BEST_STOCK = "best stock"
LIMIT = "limit"
MET, MISSED, NOT_APPLICABLE = "met", "missed", "n/a"
WITHIN_NOISE = "within noise"
# A verdict needs the required figure outside the measured one's interval
# at this confidence; inside it, the run cannot tell: within noise.
CONFIDENCE = 0.95

# The targets for the candidate scheduler, judged on the means of
# one run.  A row: target, cell, profile, the thread counts it must hold
# at (None: every count the run has) and its conditions (metric, factor,
# against): the candidate's mean must be at least factor x the mean of
# scheduler "against" (or of the best stock one at that thread count)
# where more is better, at most where less is better.  Against LIMIT, the
# factor is the limit itself, in the metric's unit.
TARGETS = (
    ("T12", "seed001-heavy", "hdd", None,
     (("reader_kbps", 0.5, "bfq"), ("writer_kbps", 0.7, "mq-deadline"),
      ("reader_lat_max_ms", 0.5, "mq-deadline"))),
    ("T13", "seed001-dbench", "hdd", None,
     (("seconds_per_loadfile", 1.05, BEST_STOCK),)),
    ("T14", "seed000-mmap-64k", "hdd", (4, 16),
     (("reader_kbps", 1.1, "bfq"), ("reader_kbps", 2.0, "mq-deadline"))),
    ("T14", "seed000-raid-64k", "raid4", (4, 16),
     (("reader_kbps", 1.2, BEST_STOCK),)),
    ("T15", "seed003-dd", "hdd", None,
     (("reader_kbps", 1.0, BEST_STOCK), ("writer_kbps", 0.9, BEST_STOCK))),
    ("T16", "seed004-writers", "hdd", None,
     (("gap_max_ms", 500, LIMIT), ("reader_kbps", 0.5, "bfq"),
      ("writer_kbps", 0.95, "mq-deadline"))),
    ("T17", "nullblk-iops", "raw", None,
     (("nullb_iops", 0.9, "mq-deadline"), ("nullb_iops", 2.0, "bfq"))),
    # Issue 30, item 2: writeback is not starved by random readers.
    ("T18", "seed001-starve", "hdd", None,
     (("writer_kbps", 0.5, "mq-deadline"),
      ("writer_lat_max_ms", 2.0, "mq-deadline"),
      ("reader_kbps", 0.9, "bfq"))),
)

# Issue 33's targets for mq-as, the anticipatory scheduler, in the same
# form.  seeds/004's writers are held to the plain 0.95x mq-deadline here;
# the frontier (0.95x mq-deadline's x (1 - the reader's share of
# disk time)) is lower, and a miss is checked against it in the note.
AS_CANDIDATE = "mq-as"
AS_TARGETS = (
    ("A12", "seed001-heavy", "hdd", None,
     (("reader_kbps", 0.5, "bfq"), ("writer_kbps", 0.7, "mq-deadline"),
      ("reader_lat_max_ms", 0.5, "mq-deadline"))),
    ("A14", "seed000-mmap-64k", "hdd", (4, 16),
     (("reader_kbps", 2.0, "mq-deadline"),)),
    ("A15", "seed003-dd", "hdd", None,
     (("reader_kbps", 1.0, BEST_STOCK), ("total_kbps", 0.97, BEST_STOCK))),
    ("A16", "seed004-writers", "hdd", None,
     (("gap_max_ms", 500, LIMIT), ("reader_kbps", 0.5, "bfq"),
      ("writer_kbps", 0.95, "mq-deadline"))),
    ("A17", "nullblk-iops", "raw", None,
     (("nullb_iops", 0.95, "mq-deadline"),)),
    # Where blk-ioq counts several units, mq-as does not anticipate.
    ("A19", "seed000-raid-64k", "raid4", None,
     (("reader_kbps", 0.95, BEST_STOCK),)),
)

# The readahead targets (issues 5 and 31), in the same form: the series'
# adaptive readahead (under mq-deadline) against the stock algorithm in the
# same run: mq-deadline-rastock (stock at the kernel's read_ahead_kb, 128
# KiB on these disks), or the best of it and its fixed windows
# (mq-deadline-rastock@read_ahead_kb=N, booted apart), RA_BEST_WINDOW: the
# best a user could get by tuning the stock kernel. Judged only in runs
# that have mq-deadline-rastock.
RA_CANDIDATE = "mq-deadline"
RA_STOCK = "mq-deadline-rastock"
RA_BEST_WINDOW = "best stock window"
# The stock window that RA_BEST_WINDOW picks by throughput (reader_kbps) at
# the same thread count: the bytes read from the disk per byte used are
# compared with that setting's, not with the window best at reading least.
RA_FASTEST_WINDOW = "fastest stock window"
RA_AMPLIFICATION = ("read_amplification", 1.0, RA_FASTEST_WINDOW)
RA_TARGETS = (
    ("R10", "seed002-rand16k", "hdd", None,
     (("reader_kbps", 0.98, RA_BEST_WINDOW), RA_AMPLIFICATION)),
    ("R10", "seed002-rand512k", "hdd", None,
     (("reader_kbps", 0.98, RA_BEST_WINDOW), RA_AMPLIFICATION)),
    # A timed run stops its sequential readers with their last windows
    # read but unused, more of them the larger the windows: their
    # read_amplification is judged where the same readers read their files
    # once to the end (RA_TIMED_STREAMS).
    ("R11", "seed002-seq16k", "hdd", (16, 64),
     (("reader_kbps", 1.5, RA_STOCK), ("reader_kbps", 0.98, RA_BEST_WINDOW))),
    ("R12", "seed002-seq16k", "hdd", (1,),
     (("reader_kbps", 0.98, RA_BEST_WINDOW),)),
    ("R17", "seed002-seq16k-once", "hdd", None,
     (("reader_kbps", 0.98, RA_BEST_WINDOW), RA_AMPLIFICATION)),
    # The same on XFS, which reads files into large folios.
    ("R15", "seed002-seq16k-xfs", "hdd", (16, 64),
     (("reader_kbps", 1.5, RA_STOCK), ("reader_kbps", 0.98, RA_BEST_WINDOW))),
    ("R16", "seed002-seq16k-xfs", "hdd", (1,),
     (("reader_kbps", 0.98, RA_BEST_WINDOW),)),
    ("R18", "seed002-seq16k-xfs-once", "hdd", None,
     (("reader_kbps", 0.98, RA_BEST_WINDOW), RA_AMPLIFICATION)),
    ("R13", "seed002-cached", "hdd", None,
     (("reader_sys_per_gib_ms", 1.0, RA_BEST_WINDOW),)),
    ("R14", "seed002-squeeze", "hdd", None,
     (("reader_kbps", 1.0, RA_BEST_WINDOW),)),
    ("R19", "seed002-squeeze-once", "hdd", None,
     (("reader_kbps", 1.0, RA_BEST_WINDOW), RA_AMPLIFICATION)),
)

# Issue 31's bar in every cell a run measures beside a fixed stock window:
# the series' readahead at least 0.98x the best window, reading no more
# per byte used than the fastest.  The targets above add what their cells
# need beyond it.
RA_EVERY_CELL = "R31"
RA_EVERY_CELL_CONDITIONS = (("reader_kbps", 0.98, RA_BEST_WINDOW),
                            RA_AMPLIFICATION)
# The timed cells of sequential readers, each with the cell whose readers
# read the same files once to the end (R17, R18, R19): there, not in the
# timed cell, its read_amplification is judged.
RA_TIMED_STREAMS = {"seed002-seq16k": "seed002-seq16k-once",
                    "seed002-seq16k-xfs": "seed002-seq16k-xfs-once",
                    "seed002-squeeze": "seed002-squeeze-once"}

# Each set of targets: its candidate, the label a run needs for the set
# to be judged, and the targets.
TARGET_SETS = ((CANDIDATE, CANDIDATE, TARGETS),
               (AS_CANDIDATE, AS_CANDIDATE, AS_TARGETS),
               (RA_CANDIDATE, RA_STOCK, RA_TARGETS))


class NotApplicable(Exception):
    """A condition this run cannot judge; the message says why."""


def row_stats(info, metric, threads):
    """Scheduler -> stats of @metric at @threads."""
    if info is None:
        raise NotApplicable(f"{metric} not measured")
    for row in info["rows"]:
        if row["threads"] == threads:
            return row["schedulers"]
    raise NotApplicable(f"{format_threads(threads)} not in this run")


def is_fixed_window(label):
    """Whether @label is stock readahead at a fixed window."""
    return label.startswith(RA_STOCK + "@read_ahead_kb=")


def stock_windows(stats):
    """The stock readahead labels of a row: mq-deadline-rastock and its
    fixed windows (mq-deadline-rastock@read_ahead_kb=N)."""
    return [name for name in stats
            if name == RA_STOCK or is_fixed_window(name)]


def best_of(stats, metric, needed, pool):
    """The best of the labels @pool at @metric; NotApplicable unless every
    label of @needed was measured."""
    missing = [name for name in needed if name not in stats]
    if missing:
        raise NotApplicable(f"{', '.join(missing)} not in this run")
    return best_schedulers({n: stats[n] for n in pool},
                           is_lower_better(metric))[0]


def reference(stats, metric, against):
    """The scheduler the candidate is compared with, and its mean."""
    if against == BEST_STOCK:
        name = best_of(stats, metric, STOCK, STOCK)
    elif against == RA_BEST_WINDOW:
        name = best_of(stats, metric, (RA_STOCK,), stock_windows(stats))
    elif against in stats:
        name = against
    else:
        raise NotApplicable(f"{against} not in this run")
    if stats[name]["mean"] == 0:
        raise NotApplicable(f"{name} measured 0")
    return name, stats[name]["mean"]


def t_density(x, df):
    """Student's t probability density with @df degrees of freedom."""
    log_norm = (math.lgamma((df + 1) / 2) - math.lgamma(df / 2) -
                0.5 * math.log(df * math.pi))
    return math.exp(log_norm - (df + 1) / 2 * math.log1p(x * x / df))


def t_cdf(x, df, steps=2000):
    """P(T <= x), by Simpson's rule from the symmetric centre."""
    width = abs(x) / steps
    area = t_density(0, df) + t_density(abs(x), df)
    for k in range(1, steps):
        area += (4 if k % 2 else 2) * t_density(k * width, df)
    half = area * width / 3
    return 0.5 + half if x >= 0 else 0.5 - half


@functools.lru_cache(maxsize=None)
def t_quantile(p, df):
    """The x with P(T <= x) = p (p above one half), by bisection."""
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        low, high = high, high * 2
    while high - low > 1e-6:
        mid = (low + high) / 2
        low, high = (mid, high) if t_cdf(mid, df) < p else (low, mid)
    return (low + high) / 2


def welch_df(stats):
    """Welch-Satterthwaite degrees of freedom of a sum of the relative
    variances of the means of @stats (one: n - 1)."""
    parts = [(stat["cv_pct"] / 100) ** 2 / stat["n"] for stat in stats]
    spread = sum(part ** 2 / (stat["n"] - 1)
                 for part, stat in zip(parts, stats))
    return sum(parts) ** 2 / spread if spread else math.inf


def interval(value, *stats):
    """The CONFIDENCE interval of @value, the mean of stats[0] (or the
    ratio of the means of stats[0] and stats[1]): on a log scale, with the
    delta method's relative standard error and Student's t at Welch's
    degrees of freedom. None when a single run leaves it unknown."""
    if any(stat["cv_pct"] is None for stat in stats):
        return None
    relative_se = math.sqrt(sum((stat["cv_pct"] / 100) ** 2 / stat["n"]
                                for stat in stats))
    if relative_se == 0:
        return (value, value)
    half_width = t_quantile((1 + CONFIDENCE) / 2, welch_df(stats)) * relative_se
    return (value * math.exp(-half_width), value * math.exp(half_width))


def verdict(measured, required, lower_better, bounds=None):
    """Met or missed; within noise when the requirement lies inside the
    measured figure's interval @bounds."""
    if bounds is not None and bounds[0] <= required <= bounds[1]:
        return WITHIN_NOISE
    within = measured <= required if lower_better else measured >= required
    return MET if within else MISSED


def measure(info, candidate, metric, factor, against, threads):
    """The candidate's value (and ratio) for one condition at one row."""
    stats = row_stats(info, metric, threads)
    if candidate not in stats:
        raise NotApplicable(f"{candidate} not measured")
    value = stats[candidate]["mean"]
    lower_better = is_lower_better(metric)
    if against == LIMIT:
        bounds = interval(value, stats[candidate])
        return {"value": value, "interval": bounds,
                "verdict": verdict(value, factor, lower_better, bounds)}
    name, base = reference(stats, metric, against)
    ratio = value / base
    bounds = interval(ratio, stats[candidate], stats[name])
    return {"value": value, "reference": name, "ratio": ratio,
            "interval": bounds,
            "verdict": verdict(ratio, factor, lower_better, bounds)}


def judge(cell, candidate, metric, factor, against, threads):
    """One condition at one thread count, with its verdict."""
    check = {"metric": metric, "threads": threads, "factor": factor,
             "against": against}
    try:
        check.update(measure(cell["metrics"].get(metric), candidate, metric,
                             factor, reference_label(cell, against, threads),
                             threads))
    except NotApplicable as why:
        check.update(verdict=NOT_APPLICABLE, reason=str(why))
    return check


def wanted_threads(info, threads):
    """The target's thread counts, else every count the run has (one
    unjudgeable row when the run lacks the metric)."""
    if threads:
        return threads
    return [row["threads"] for row in info["rows"]] if info else [None]


def reference_label(cell, against, threads):
    """What measure() compares with at @threads: for RA_FASTEST_WINDOW, the
    stock window RA_BEST_WINDOW picks by reader_kbps (NotApplicable if the
    run cannot pick one); any other reference as it is."""
    if against != RA_FASTEST_WINDOW:
        return against
    stats = row_stats(cell["metrics"].get("reader_kbps"), "reader_kbps",
                      threads)
    return reference(stats, "reader_kbps", RA_BEST_WINDOW)[0]


def target_checks(cell, candidate, threads, conditions):
    """Each condition at each wanted thread count."""
    checks = []
    for metric, factor, against in conditions:
        info = cell["metrics"].get(metric)
        checks += [judge(cell, candidate, metric, factor, against, count)
                   for count in wanted_threads(info, threads)]
    return checks


def overall_verdict(checks):
    """Missed if any condition is; met only if every one could be judged
    and none was within noise."""
    verdicts = {check["verdict"] for check in checks}
    for outcome in (MISSED, WITHIN_NOISE, NOT_APPLICABLE):
        if outcome in verdicts:
            return outcome
    return MET


def evaluate_target_set(cells, candidate, targets):
    """Every target's verdict for @candidate."""
    results = []
    for target, name, profile, threads, conditions in targets:
        entry = {"target": target, "cell": name, "profile": profile}
        matching = [cell for cell in cells
                    if cell["cell"] == name and cell["profile"] == profile]
        if not matching:
            results.append(dict(entry, verdict=NOT_APPLICABLE, checks=[],
                                reason="cell not in this run"))
        for cell in matching:
            checks = target_checks(cell, candidate, threads, conditions)
            results.append(dict(entry, verdict=overall_verdict(checks),
                                checks=checks))
    return results


def every_cell_targets(cells):
    """RA_EVERY_CELL as a target of each cell and profile of @cells where
    the candidate ran beside the stock algorithm and a fixed window."""
    pairs = dict.fromkeys((cell["cell"], cell["profile"]) for cell in cells
                          if {RA_CANDIDATE, RA_STOCK} <= set(cell["schedulers"])
                          and any(map(is_fixed_window, cell["schedulers"])))
    return tuple((RA_EVERY_CELL, name, profile, None,
                  every_cell_conditions(name)) for name, profile in pairs)


def every_cell_conditions(cell):
    """RA_EVERY_CELL_CONDITIONS, without read_amplification in a timed
    cell of sequential readers (RA_TIMED_STREAMS judges it elsewhere)."""
    if cell not in RA_TIMED_STREAMS:
        return RA_EVERY_CELL_CONDITIONS
    return tuple(c for c in RA_EVERY_CELL_CONDITIONS if c != RA_AMPLIFICATION)


def evaluate_targets(cells):
    """The verdicts of each target set whose label ran, then RA_EVERY_CELL
    where fixed windows ran; [] if none did."""
    results = []
    for candidate, needed, targets in TARGET_SETS:
        if any(needed in cell["schedulers"] for cell in cells):
            results += evaluate_target_set(cells, candidate, targets)
    return results + evaluate_target_set(cells, RA_CANDIDATE,
                                         every_cell_targets(cells))


def target_cells():
    """"cell profile" of every target, once each, in the targets' order."""
    pairs = [f"{name} {profile}" for _, _, targets in TARGET_SETS
             for _, name, profile, _, _ in targets]
    return list(dict.fromkeys(pairs))


def format_check(check):
    """'reader_kbps at 4 threads 1.25x bfq (>= 1.1x bfq): met'."""
    metric = check["metric"]
    at = ("" if check["threads"] is None
          else f" at {format_threads(check['threads'])}")
    op = "<=" if is_lower_better(metric) else ">="
    unit = metric_unit(metric)
    if check["against"] == LIMIT:
        required = f"{op} {format_value(check['factor'])} {unit}"
    else:
        required = f"{op} {check['factor']:g}x {check['against']}"
    if check["verdict"] == NOT_APPLICABLE:
        return f"{metric}{at} {required}: n/a: {check['reason']}"
    bounds = check["interval"]
    if check["against"] == LIMIT:
        measured = f"{format_value(check['value'])} {unit}"
        if bounds is not None:
            measured += (f" ({CONFIDENCE:.0%} CI {format_value(bounds[0])}-"
                         f"{format_value(bounds[1])})")
    else:
        measured = f"{check['ratio']:.2f}x {check['reference']}"
        if bounds is not None:
            measured += (f" ({CONFIDENCE:.0%} CI {bounds[0]:.2f}-"
                         f"{bounds[1]:.2f}x)")
    return f"{metric}{at} {measured} ({required}): {check['verdict']}"


def target_line(result):
    """'T16 seed004-writers [hdd]: met; <each condition>'."""
    head = f"{result['target']} {result['cell']} [{result['profile']}]: "
    if not result["checks"]:
        return head + f"{result['verdict']}: {result['reason']}"
    return head + "; ".join([result["verdict"]] +
                            [format_check(c) for c in result["checks"]])


# ------------------------------------------------------------------ plots

def plottable_threads(rows):
    """Thread counts worth a line plot: at least two distinct real counts."""
    threads = sorted(row["threads"] for row in rows
                     if row["threads"] is not None)
    return threads if len(threads) >= 2 else []


def gnuplot_terminal(gnuplot):
    """pngcairo draws far nicer lines; plain png (libgd) is the fallback."""
    try:
        probe = subprocess.run([gnuplot, "-e", "set terminal"],
                               capture_output=True, text=True,
                               timeout=GNUPLOT_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return "png"
    listing = probe.stdout + probe.stderr
    return "pngcairo" if re.search(r"^\s*pngcairo\s", listing, re.M) else "png"


def gp_string(text):
    """A gnuplot single-quoted string literal ('' escapes a quote)."""
    return "'" + str(text).replace("'", "''") + "'"


def plot_title(cell, metric):
    setup = ", ".join(str(p) for p in (cell["profile"], cell["disk"]) if p)
    return f"{cell['title']}: {metric}" + (f" ({setup})" if setup else "")


def axis_label(metric, unit):
    direction = "lower" if is_lower_better(metric) else "higher"
    return f"{metric}" + (f" [{unit}]" if unit else "") + \
        f" ({direction} is better)"


def write_plot_data(path, cell, rows):
    """One gnuplot data block (index) per scheduler: threads, mean."""
    series = []
    with open(path, "w", encoding="utf-8") as data:
        for name in cell["schedulers"]:
            points = [(row["threads"], row["schedulers"][name]["mean"])
                      for row in rows if row["threads"] is not None
                      and name in row["schedulers"]]
            if not points:
                continue
            data.write(f"# {name}\n")
            data.writelines(f"{t} {mean!r}\n" for t, mean in points)
            data.write("\n\n")
            series.append(name)
    return series


def x_axis_range(low, high):
    """Log2 axis for wide thread ranges; pad so the end tics stay visible."""
    if low > 0 and high / low >= 8:
        return ["set logscale x 2", f"set xrange [{low / 1.2!r}:{high * 1.2!r}]"]
    pad = (high - low) * 0.05
    return [f"set xrange [{low - pad!r}:{high + pad!r}]"]


def plot_script(png, data, series, cell, metric, info, terminal):
    threads = plottable_threads(info["rows"])
    lines = [f"set terminal {terminal} size 800,500 noenhanced",
             "set encoding utf8",
             f"set output {gp_string(png)}",
             f"set title {gp_string(plot_title(cell, metric))}",
             "set xlabel 'threads'",
             f"set ylabel {gp_string(axis_label(metric, info['unit']))}",
             "set grid",
             "set key outside right top",
             "set yrange [0:*]",
             "set xtics (" + ", ".join(f"'{t}' {t}" for t in
                                       sorted(set(threads))) + ")"]
    lines += x_axis_range(threads[0], threads[-1])
    curves = [f"{gp_string(data)} index {i} using 1:2 with linespoints "
              f"lw 2 pt 7 title {gp_string(name)}"
              for i, name in enumerate(series)]
    lines.append("plot " + ", \\\n     ".join(curves))
    return "\n".join(lines) + "\n"


def render_plot(gnuplot, terminal, run_dir, workdir, cell, metric, info):
    """Draw one PNG; returns its file name, or None if gnuplot failed."""
    stem = f"plot-{cell['id']}-{safe_filename_part(metric)}"
    png = os.path.join(run_dir, stem + ".png")
    data = os.path.join(workdir, stem + ".dat")
    script = os.path.join(workdir, stem + ".gp")
    series = write_plot_data(data, cell, info["rows"])
    with open(script, "w", encoding="utf-8") as gp:
        gp.write(plot_script(png, data, series, cell, metric, info, terminal))
    try:
        done = subprocess.run([gnuplot, script], capture_output=True,
                              text=True, timeout=GNUPLOT_TIMEOUT_S,
                              check=False)
    except (OSError, subprocess.SubprocessError) as err:
        warn(f"gnuplot failed for {stem}: {err}")
        return None
    if done.returncode != 0 or not os.path.isfile(png):
        warn(f"gnuplot failed for {stem}: {done.stderr.strip()}")
        return None
    return os.path.basename(png)


def render_plots(cells, run_dir):
    """Plots are a bonus: without gnuplot the report is still complete."""
    wanted = [(cell, metric, info) for cell in cells
              for metric, info in cell["metrics"].items()
              if plottable_threads(info["rows"])]
    if not wanted:
        return
    gnuplot = shutil.which("gnuplot")
    if gnuplot is None:
        warn("gnuplot not found; plots skipped")
        return
    terminal = gnuplot_terminal(gnuplot)
    with tempfile.TemporaryDirectory(prefix="bench-report-") as workdir:
        for cell, metric, info in wanted:
            info["plot"] = render_plot(gnuplot, terminal, run_dir, workdir,
                                       cell, metric, info)


# ---------------------------------------------------------------- markdown

def format_table_cell(stat):
    """'1797 (2.1%) +6%', with '!' after a noisy CV and a trailing '*'."""
    text = f"{format_value(stat['mean'])} ({format_cv(stat['cv_pct'])})"
    if is_noisy(stat["cv_pct"]):
        text += HIGH_CV_MARK
    diff = format_diff(stat["diff_pct"])
    if diff:
        text += " " + diff
    if stat["incomplete"]:
        text += INCOMPLETE_MARK
    return text


def table_lines(cell, metric, info):
    """A markdown table: rows are thread counts, columns schedulers."""
    headers = [f"{metric} {better_arrow(metric)}"] + [
        name + (" (base)" if name == cell["baseline"] else "")
        for name in cell["schedulers"]]
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join(["---"] + ["---:"] * len(cell["schedulers"])) + "|"]
    for row in info["rows"]:
        values = [format_table_cell(row["schedulers"][name])
                  if name in row["schedulers"] else MISSING
                  for name in cell["schedulers"]]
        lines.append("| " + " | ".join([format_threads(row["threads"])]
                                       + values) + " |")
    return lines


def footnote_lines(info):
    stats = [s for row in info["rows"] for s in row["schedulers"].values()]
    notes = []
    if any(is_noisy(s["cv_pct"]) for s in stats):
        notes.append(f"`{HIGH_CV_MARK}` CV above {HIGH_CV_PCT:g}%")
    if any(s["incomplete"] for s in stats):
        notes.append(f"`{INCOMPLETE_MARK}` incomplete: includes measurements "
                     "from an interrupted run")
    return [f"<sub>{'; '.join(notes)}</sub>"] if notes else []


def winners_text(rows):
    """'bfq' for one row, else 'bfq (1, 2 threads), kyber (8 threads)'."""
    by_name = {}
    for row in rows:
        by_name.setdefault("/".join(row["best"]), []).append(row["threads"])
    if len(rows) == 1:
        return next(iter(by_name))
    if len(by_name) == 1:
        return f"{next(iter(by_name))} (all thread counts)"
    return ", ".join(
        f"{name} ({', '.join(map(str, threads))} "
        f"thread{'' if threads == [1] else 's'})"
        for name, threads in by_name.items())


def best_line(cell):
    """One line per cell: the winning scheduler of every row of every metric."""
    parts = [f"{metric} {better_arrow(metric).split()[0]} "
             f"{winners_text(info['rows'])}"
             for metric, info in cell["metrics"].items()]
    return "**Best:** " + "; ".join(parts)


def cell_heading(cell):
    """Cell name and title; the setup too when the cell ran on several."""
    heading = f"## {cell['cell']}"
    if cell["title"] != cell["cell"]:
        heading += f": {cell['title']}"
    if cell["id"] != safe_filename_part(cell["cell"]):
        setup = (cell["profile"], cell["disk"])
        heading += " [" + ", ".join(str(p) for p in setup if p) + "]"
    return heading


def queue_gain_line(cell):
    """For a device-read cell measured at several queue depths: each
    scheduler's IOPS at every depth against its IOPS at the shallowest,
    the gain the device's own queue (or its parallelism) gives; "" for
    other cells."""
    info = cell["metrics"].get("device_iops")
    rows = sorted((row for row in info["rows"] if row["threads"]),
                  key=lambda row: row["threads"]) if info else []
    if len(rows) < 2:
        return ""
    parts = []
    for name in cell["schedulers"]:
        base = rows[0]["schedulers"].get(name, {}).get("mean")
        gains = [f"QD{row['threads']} "
                 f"{row['schedulers'][name]['mean'] / base:.2f}x"
                 for row in rows[1:] if name in row["schedulers"]]
        if base and gains:
            parts.append(f"{name} {', '.join(gains)}")
    return (f"Queue gain against QD{rows[0]['threads']}: " +
            "; ".join(parts) if parts else "")


def cell_section(cell):
    setup = [f"{k} {cell[k]}" for k in ("profile", "disk") if cell[k]]
    lines = [cell_heading(cell), "",
             "; ".join(setup + [f"baseline {cell['baseline']}"]), ""]
    gain = queue_gain_line(cell)
    if gain:
        lines += [gain, ""]
    for metric, info in cell["metrics"].items():
        unit = f" [{info['unit']}]" if info["unit"] else ""
        lines += [f"**{metric}**{unit}, {better_arrow(metric)}", ""]
        lines += table_lines(cell, metric, info)
        notes = footnote_lines(info)
        lines += [""] + notes + ([""] if notes else [])
        if info["plot"]:
            lines += [f"![{plot_title(cell, metric)}]({info['plot']})", ""]
    lines += [best_line(cell), ""]
    return lines


def header_lines(run):
    def listed(values):
        return ", ".join(map(str, values)) or MISSING
    incomplete = run["incomplete_measurements"]
    failed = run["failed_measurements"]
    return [f"# Benchmark run {run['run']}", "",
            f"- kernel: {listed(run['kernels'])}",
            f"- series: {listed(run['series'])}",
            f"- profiles: {listed(run['profiles'])}",
            *([f"- guest's queue/rotational: " + ", ".join(
                f"{profile} {listed(values)}"
                for profile, values in run["rotational"].items())]
              if run["rotational"] else []),
            f"- disk kinds: {listed(run['disks'])}",
            *([f"- guest memory: {listed(run['mem_mib'])} MiB"]
              if run["mem_mib"] else []),
            f"- measurements: {run['measurements']}"
            + (f" ({incomplete} incomplete)" if incomplete else ""),
            *([f"- failed measurements: {len(failed)} (listed at the end)"]
              if failed else []),
            *timing_lines(run["model_timing"]),
            f"- repetitions: {run['repetitions']}",
            f"- baseline: {run['baseline']}", "",
            "Each table cell: mean over repetitions (coefficient of "
            "variation) %diff of the mean against the baseline column. "
            "%diff is the plain change of the value: check the arrow to see "
            f"whether up or down is better. `{HIGH_CV_MARK}` CV above "
            f"{HIGH_CV_PCT:g}%, `{INCOMPLETE_MARK}` incomplete, "
            f"`{MISSING}` not measured or single repetition.", ""]


def targets_section(targets):
    """The candidate's targets, one line each, before the cell tables."""
    if not targets:
        return []
    return ["## Targets", "",
            "Ratios of means over repetitions. T targets: "
            f"{CANDIDATE} against the stock schedulers of this run (best "
            f"stock: the best of {', '.join(STOCK)} at that thread count). "
            f"A targets: {AS_CANDIDATE} against them, in the same way. "
            f"R targets: {RA_CANDIDATE} with the adaptive readahead against "
            f"{RA_STOCK}, the stock readahead at the kernel's read_ahead_kb, "
            f"or the {RA_BEST_WINDOW} (the best of it and its fixed windows "
            f"{RA_STOCK}@read_ahead_kb=N, which boot apart); read_amplification "
            f"against the {RA_FASTEST_WINDOW} (the one with the best "
            f"reader_kbps), except in the timed cells of sequential readers "
            f"({', '.join(RA_TIMED_STREAMS)}), which end with their last "
            "windows unused: there it is judged in the cells that read the "
            f"same files once to the end. {RA_EVERY_CELL}: that bar in every "
            "cell measured beside a fixed window.", ""] + [
                f"- {target_line(result)}" for result in targets] + [""]


def render_markdown(run, targets, cells):
    lines = header_lines(run) + targets_section(targets)
    for cell in cells:
        lines += cell_section(cell)
    if run["failed_measurements"]:
        lines += ["## Failed measurements", "",
                  *[f"- {failure}" for failure in run["failed_measurements"]],
                  ""]
    return "\n".join(lines).rstrip("\n") + "\n"


# ---------------------------------------------------------------- outputs

def write_text(path, text):
    """Write via a temporary name so readers never see half a report."""
    partial = path + ".tmp"
    with open(partial, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(partial, path)


def summary_json(run, targets, cells):
    return json.dumps({"run": run, "targets": targets, "cells": cells},
                      indent=1, ensure_ascii=False) + "\n"


def make_report(run_dir, baseline=DEFAULT_BASELINE):
    """Read results.jsonl, write report.md/summary.json/plots; return the
    report's path and the targets' verdicts."""
    records, failures = load_records(results_path(run_dir))
    warn_repeated_reps(records)
    if baseline not in distinct(records, "scheduler"):
        warn(f"baseline scheduler {baseline} not in this run; "
             "each table uses its first scheduler instead")
    cells = aggregate(records, baseline)
    run = run_info(records, failures, run_dir, cells, baseline)
    targets = evaluate_targets(cells)
    render_plots(cells, run_dir)
    report = os.path.join(run_dir, "report.md")
    write_text(report, render_markdown(run, targets, cells))
    write_text(os.path.join(run_dir, "summary.json"),
               summary_json(run, targets, cells))
    return report, targets


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog=PROG, description="Tabulate and plot a benchmark run.")
    parser.add_argument("run_dir", nargs="?",
                        help="build/bench/<run> (holds results.jsonl)")
    parser.add_argument("--baseline", default=DEFAULT_BASELINE, metavar="NAME",
                        help="scheduler the %%diff is computed against "
                        f"(default {DEFAULT_BASELINE})")
    parser.add_argument("--target-cells", action="store_true",
                        help="list the cell and profile of every target "
                        "and exit")
    args = parser.parse_args(argv)
    if args.target_cells:
        return args
    if args.run_dir is None:
        parser.error("the run directory is required")
    if os.path.basename(args.run_dir) == "results.jsonl":
        args.run_dir = os.path.dirname(args.run_dir) or "."
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.target_cells:
        print("\n".join(target_cells()))
        return 0
    try:
        report, targets = make_report(args.run_dir, args.baseline)
    except (ReportError, OSError) as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 1
    for result in targets:
        print(target_line(result))
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
