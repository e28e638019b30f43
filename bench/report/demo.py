# SPDX-License-Identifier: GPL-2.0
"""make run's demonstration: a small table and a plot from two bench runs.

Usage: python3 bench/report/demo.py WRITERS_RUN STREAMS_RUN PNG

WRITERS_RUN measured seed001-heavy (a random reader beside two buffered
writers) under several schedulers, STREAMS_RUN seed002-seq16k (sequential
readers) with the stock readahead (mq-deadline-rastock) and the series'
(mq-deadline). One repetition each: the figures show the point, make
bench measures it.  Standard library only, plus gnuplot for the PNG.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (gnuplot_terminal, gp_string)

WRITERS_CELL = "seed001-heavy"
STREAMS_CELL = "seed002-seq16k"
READAHEAD = [("stock", "mq-deadline-rastock"), ("the series'", "mq-deadline")]


def measurements(run_dir, cell):
    """{scheduler: measurement} of @cell's complete measurements in @run_dir."""
    found = {}
    with open(os.path.join(run_dir, "results.jsonl")) as f:
        for line in f:
            m = json.loads(line)
            if m.get("cell") == cell and m.get("complete"):
                found[m["scheduler"]] = m
    if not found:
        raise SystemExit(f"demo.py: {run_dir} has no complete {cell} measurement")
    return found


def scaled(metrics, key, divisor=1):
    """@metrics[@key] / @divisor, or None where the run did not record it."""
    value = metrics.get(key)
    return None if value is None else value / divisor


def writers_rows(found):
    """(scheduler, reader KiB/s, writers MiB/s, reader's longest wait in ms)."""
    return [(s, scaled(m["metrics"], "reader_kbps"), scaled(m["metrics"], "writer_kbps", 1024),
             scaled(m["metrics"], "reader_gap_max_ms"))
            for s, m in found.items()]


def streams_rows(found):
    """(readahead, MiB/s of all readers, None where that label did not run)."""
    return [(name, scaled(found[label]["metrics"], "reader_kbps", 1024)
             if label in found else None)
            for name, label in READAHEAD]


def cell(value, width, digits):
    return f"{'n/a':>{width}}" if value is None else f"{value:>{width}.{digits}f}"


def table(writers, streams, first_writer, first_stream):
    """The demonstration's table; the first records name the setting."""
    lines = [f"On the {first_writer['profile']} model, {first_writer['mem_mib']} MiB guest: "
             f"a {first_writer['bs']} random reader beside two buffered writers",
             f"{'scheduler':<14}{'reader KiB/s':>13}{'writes MiB/s':>14}"
             f"{'reader waited at most':>24}"]
    lines += [f"{s:<14}{cell(r, 13, 0)}{cell(w, 14, 1)}{cell(g, 21, 0)} ms"
              for s, r, w, g in writers]
    lines += ["(writes: what the page cache took in, not all of it on the disk yet)", "",
              f"{first_stream['threads']} sequential readers of {first_stream['bs']}, "
              f"each of its own file, {first_stream['mem_mib']} MiB guest",
              f"{'readahead':<14}{'MiB/s':>13}"]
    lines += [f"{name:<14}{cell(mibps, 13, 1)}" for name, mibps in streams]
    return "\n".join(lines)


def plot(writers, streams, png):
    """Two bar charts side by side; False where gnuplot is missing or failed."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        return False
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "demo.dat")
        with open(data, "w") as f:
            for s, r, _, _ in writers:
                f.write(f'"{s}" {r if r is not None else 0:.1f}\n')
            f.write("\n\n")
            for name, mibps in streams:
                f.write(f'"{name}" {mibps if mibps is not None else 0:.2f}\n')
        data = report.gp_string(data)
        script = f"""
set terminal {report.gnuplot_terminal(gnuplot)} size 900,360 noenhanced
set output {report.gp_string(png)}
set multiplot layout 1,2
set style fill solid 0.6
set boxwidth 0.6
set yrange [0:*]
unset key
set title 'random reader beside buffered writers'
set ylabel 'reader KiB/s'
plot {data} index 0 using 0:2:xtic(1) with boxes
set title 'sequential readers'
set ylabel 'MiB/s'
plot {data} index 1 using 0:2:xtic(1) with boxes
unset multiplot
"""
        try:
            run = subprocess.run([gnuplot], input=script, text=True, capture_output=True,
                                 timeout=report.GNUPLOT_TIMEOUT_S)
        except (OSError, subprocess.SubprocessError):
            return False
        return run.returncode == 0 and os.path.exists(png)


def main(argv):
    if len(argv) != 4:
        raise SystemExit("usage: demo.py WRITERS_RUN STREAMS_RUN PNG")
    writers_found = measurements(argv[1], WRITERS_CELL)
    streams_found = measurements(argv[2], STREAMS_CELL)
    writers, streams = writers_rows(writers_found), streams_rows(streams_found)
    print(table(writers, streams, next(iter(writers_found.values())),
                next(iter(streams_found.values()))))
    if plot(writers, streams, argv[3]):
        print(f"\nplot: {argv[3]}")
    else:
        print("\n(gnuplot could not draw the plot)")


if __name__ == "__main__":
    main(sys.argv)
