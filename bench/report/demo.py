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
import subprocess
import sys
import tempfile

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


def writers_rows(found):
    """(scheduler, reader KB/s, writers MB/s, reader's longest wait in ms)."""
    rows = []
    for s, m in found.items():
        f = m["metrics"]
        rows.append((s, f.get("reader_kbps", 0.0), f.get("writer_kbps", 0.0) / 1024,
                     f.get("reader_gap_max_ms", f.get("reader_lat_max_ms", 0.0))))
    return rows


def streams_rows(found):
    """(readahead, scheduler label, MB/s of all readers)."""
    return [(name, label, found[label]["metrics"].get("reader_kbps", 0.0) / 1024)
            for name, label in READAHEAD if label in found]


def table(writers, streams, threads):
    lines = ["On the hdd model (one spindle): a 4 KiB random reader beside two "
             "buffered writers",
             f"{'scheduler':<14}{'reader KB/s':>12}{'writers MB/s':>14}"
             f"{'reader waited at most':>23}"]
    lines += [f"{s:<14}{r:>12.0f}{w:>14.1f}{g:>20.0f} ms" for s, r, w, g in writers]
    lines += ["", f"{threads} sequential readers of 16 KiB, each of its own file "
              "(256 MiB guest)",
              f"{'readahead':<14}{'MB/s':>12}"]
    lines += [f"{name:<14}{mbps:>12.1f}" for name, _, mbps in streams]
    return "\n".join(lines)


def plot(writers, streams, png):
    """Two bar charts side by side; False if gnuplot failed."""
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "demo.dat")
        with open(data, "w") as f:
            for s, r, _, _ in writers:
                f.write(f'"{s}" {r:.1f}\n')
            f.write("\n\n")
            for name, _, mbps in streams:
                f.write(f'"{name}" {mbps:.2f}\n')
        script = f"""
set terminal pngcairo size 900,360 noenhanced
set output '{png}'
set multiplot layout 1,2
set style fill solid 0.6
set boxwidth 0.6
set yrange [0:*]
unset key
set title 'random reader beside buffered writers'
set ylabel 'reader KB/s'
plot '{data}' index 0 using 0:2:xtic(1) with boxes
set title 'sequential readers'
set ylabel 'MB/s'
plot '{data}' index 1 using 0:2:xtic(1) with boxes
unset multiplot
"""
        run = subprocess.run(["gnuplot"], input=script, text=True,
                             capture_output=True, timeout=60)
        return run.returncode == 0 and os.path.exists(png)


def main(argv):
    if len(argv) != 4:
        raise SystemExit("usage: demo.py WRITERS_RUN STREAMS_RUN PNG")
    writers = writers_rows(measurements(argv[1], WRITERS_CELL))
    streams_found = measurements(argv[2], STREAMS_CELL)
    streams = streams_rows(streams_found)
    threads = next(iter(streams_found.values())).get("threads", "")
    print(table(writers, streams, threads))
    if plot(writers, streams, argv[3]):
        print(f"\nplot: {argv[3]}")
    else:
        print("\n(gnuplot could not draw the plot)")


if __name__ == "__main__":
    main(sys.argv)
