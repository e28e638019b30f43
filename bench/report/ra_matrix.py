# SPDX-License-Identifier: GPL-2.0
"""Issue 31's readahead matrix in one table, from the bench runs that make
ra-matrix recorded: for each cell, profile, guest memory and thread count,
the series' reader_kbps against the best stock window and its
read_amplification against the fastest one (report.py's R31 target, with
95% confidence intervals), and the other readahead targets' lines.  The
verdicts are judged again from each run's results.jsonl, with today's
report.py.  Writes markdown to stdout and, with gnuplot, ra-matrix.png
next to the runs.

Usage: python3 bench/report/ra_matrix.py build/bench/<run> ...
"""
import os
import shutil
import subprocess
import sys
import tempfile

import report

PROG = "ra_matrix.py"
KBPS, AMPLIFICATION = "reader_kbps", "read_amplification"


def judge_run(run_dir):
    """{"run": {"run", "mem_mib"}, "targets"} of the run in @run_dir."""
    path = report.results_path(run_dir)
    if not os.path.isfile(path):
        sys.exit(f"{PROG}: {path}: no such file")
    records, _ = report.load_records(path)
    cells = report.aggregate(records, report.DEFAULT_BASELINE)
    return {"run": {"run": os.path.basename(os.path.normpath(run_dir)),
                    "mem_mib": report.distinct(records, "mem_mib")},
            "targets": report.evaluate_targets(cells)}


def run_memory(run):
    """The guest memory of a run as text: '256' or '256,1024'."""
    return ",".join(str(mib) for mib in run.get("mem_mib", [])) or "?"


def ratio_text(check):
    """'0.97x (0.93-1.01)' or the reason a check could not be judged."""
    if check is None:
        return report.MISSING
    if check["verdict"] == report.NOT_APPLICABLE:
        return f"n/a: {check['reason']}"
    text = f"{check['ratio']:.2f}x"
    if check["interval"] is not None:
        low, high = check["interval"]
        text += f" ({low:.2f}-{high:.2f})"
    return text


def window_name(check):
    """The stock setting a check compared with, as 'rastock@1024'."""
    if check is None or "reference" not in check:
        return report.MISSING
    return check["reference"].replace("mq-deadline-", "").replace(
        "read_ahead_kb=", "")


def amplification_text(row):
    """ratio_text of the row's read_amplification, or where it is judged
    for a timed cell of sequential readers."""
    if row["cell"] in report.RA_TIMED_STREAMS:
        return f"in {report.RA_TIMED_STREAMS[row['cell']]}"
    return ratio_text(row["amplification"])


def row_verdict(checks):
    """As report.py judges a target; a check the row lacks is n/a."""
    return report.overall_verdict(
        [c if c is not None else {"verdict": report.NOT_APPLICABLE}
         for c in checks])


def matrix_rows(summaries):
    """One row per cell, profile, memory and thread count of R31."""
    rows = []
    for summary in summaries:
        memory = run_memory(summary["run"])
        for target in summary["targets"]:
            if target["target"] != report.RA_EVERY_CELL:
                continue
            by_threads = {}
            for check in target["checks"]:
                by_threads.setdefault(check["threads"], {})[
                    check["metric"]] = check
            judged = [metric for metric, _, _ in
                      report.every_cell_conditions(target["cell"])]
            for threads, checks in by_threads.items():
                rows.append({
                    "cell": target["cell"], "profile": target["profile"],
                    "memory": memory, "threads": threads,
                    "kbps": checks.get(KBPS),
                    "amplification": checks.get(AMPLIFICATION),
                    "verdict": row_verdict([checks.get(metric)
                                            for metric in judged]),
                    "run": summary["run"]["run"]})
    return rows


def other_target_lines(summaries):
    """The lines of every other readahead target (R10-R16) of the runs."""
    return [f"- {report.target_line(t)} (run {s['run']['run']}, "
            f"{run_memory(s['run'])} MiB)"
            for s in summaries for t in s["targets"]
            if t["target"].startswith("R")
            and t["target"] != report.RA_EVERY_CELL
            and t["checks"]]


def markdown(rows, other_lines):
    lines = ["# Issue 31: the readahead matrix", "",
             f"{report.RA_EVERY_CELL} in each cell: {report.RA_CANDIDATE} "
             "(the series' adaptive readahead) against the best stock "
             "window of the same run (mq-deadline-rastock at the kernel's "
             "128 KiB or at a fixed read_ahead_kb), needing >= 0.98x its "
             "reader_kbps, and against the fastest window's "
             "read_amplification (<= 1.0x). Ratios of means, "
             f"{report.CONFIDENCE:.0%} confidence intervals.", "",
             "| cell | profile | guest MiB | threads | reader_kbps vs best "
             "| best | read_amplification vs fastest | verdict | run |",
             "|---|---|---:|---:|---:|---|---:|---|---|"]
    for row in rows:
        lines.append(
            f"| {row['cell']} | {row['profile']} | {row['memory']} | "
            f"{report.format_threads(row['threads'])} | "
            f"{ratio_text(row['kbps'])} | {window_name(row['kbps'])} | "
            f"{amplification_text(row)} | {row['verdict']} | "
            f"{row['run']} |")
    counts = {}
    for row in rows:
        counts[row["verdict"]] = counts.get(row["verdict"], 0) + 1
    lines += ["", "Rows: " + ", ".join(f"{n} {verdict}" for verdict, n in
                                       sorted(counts.items())), ""]
    if other_lines:
        lines += ["## The other readahead targets", ""] + other_lines + [""]
    return "\n".join(lines)


def plot_script(png, data, labels, terminal):
    tics = ", ".join(f"{report.gp_string(label)} {i}"
                     for i, label in enumerate(labels))
    return "\n".join([
        f"set terminal {terminal} size 900,{200 + 18 * len(labels)} "
        "noenhanced",
        f"set output {report.gp_string(png)}",
        "set title 'issue 31: series reader_kbps / best stock window "
        "(95% CI)'",
        f"set ytics ({tics})", "set yrange [-1:*] reverse",
        "set grid xtics", "set key off",
        "set arrow from 0.98, graph 0 to 0.98, graph 1 nohead dt 2",
        f"plot {report.gp_string(data)} using 2:1:3:4 with xerrorbars "
        "pt 7", ""])


def render_plot(rows, out_dir):
    """ra-matrix.png: each row's ratio and interval; skipped without
    gnuplot or without a judged row."""
    judged = [row for row in rows if row["kbps"] is not None
              and row["kbps"]["verdict"] != report.NOT_APPLICABLE]
    gnuplot = shutil.which("gnuplot")
    if not judged or gnuplot is None:
        return None
    png = os.path.join(out_dir, "ra-matrix.png")
    labels = [f"{r['cell']} {r['profile']} {r['memory']} "
              f"{report.format_threads(r['threads'])}" for r in judged]
    with tempfile.TemporaryDirectory(prefix="ra-matrix-") as workdir:
        data = os.path.join(workdir, "ra-matrix.dat")
        with open(data, "w", encoding="utf-8") as f:
            for i, row in enumerate(judged):
                ratio = row["kbps"]["ratio"]
                low, high = row["kbps"]["interval"] or (ratio, ratio)
                f.write(f"{i} {ratio} {low} {high}\n")
        script = os.path.join(workdir, "ra-matrix.gp")
        with open(script, "w", encoding="utf-8") as f:
            f.write(plot_script(png, data, labels,
                                report.gnuplot_terminal(gnuplot)))
        done = subprocess.run([gnuplot, script], capture_output=True,
                              text=True, timeout=report.GNUPLOT_TIMEOUT_S,
                              check=False)
    if done.returncode != 0:
        report.warn(f"gnuplot failed for ra-matrix.png: {done.stderr}")
        return None
    return png


def main(argv):
    if not argv:
        sys.exit(f"usage: {PROG} build/bench/<run> ...")
    summaries = [judge_run(run_dir) for run_dir in argv]
    rows = matrix_rows(summaries)
    text = markdown(rows, other_target_lines(summaries))
    png = render_plot(rows, os.path.dirname(os.path.abspath(argv[0])))
    if png:
        text += f"\n![the matrix]({os.path.basename(png)})\n"
    sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
