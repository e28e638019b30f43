# SPDX-License-Identifier: GPL-2.0
"""Tests for demo.py, make run's table and plot.

Run: python3 -m unittest discover -s bench/report -v
"""

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import demo  # noqa: E402  (needs the sys.path entry above)


def write_run(directory, cell, threads, bs, mem_mib, by_scheduler):
    os.makedirs(directory)
    with open(os.path.join(directory, "results.jsonl"), "w") as f:
        for scheduler, metrics in by_scheduler.items():
            f.write(json.dumps({"cell": cell, "scheduler": scheduler, "threads": threads,
                                "profile": "hdd", "bs": bs, "mem_mib": mem_mib,
                                "complete": True, "metrics": metrics}) + "\n")
        f.write(json.dumps({"cell": cell, "scheduler": "kyber", "threads": threads,
                            "complete": False, "metrics": {}}) + "\n")


class Demo(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.writers = os.path.join(self.tmp, "writers")
        self.streams = os.path.join(self.tmp, "streams")
        write_run(self.writers, "seed001-heavy", None, "4k", 1024, {
            "mq-deadline": {"reader_kbps": 40, "writer_kbps": 20480, "reader_gap_max_ms": 5100},
            "bfq": {"reader_kbps": 300, "writer_kbps": 10240, "reader_gap_max_ms": 900},
            "mq-cfq": {"reader_kbps": 280, "writer_kbps": 12288}})
        write_run(self.streams, "seed002-seq16k", 16, "16k", 256, {
            "mq-deadline-rastock": {"reader_kbps": 20480}})

    def run_demo(self, png):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            demo.main(["demo.py", self.writers, self.streams, png])
        return out.getvalue()

    def test_table(self):
        out = self.run_demo(os.path.join(self.tmp, "demo.png"))
        # mq-cfq's wait and the series' streams were not recorded: n/a
        self.assertEqual(out.split("\n\nplot:")[0].split("\n\n(gnuplot")[0], "\n".join([
            "On the hdd model, 1024 MiB guest: a 4k random reader beside two buffered writers",
            "scheduler      reader KiB/s  writes MiB/s   reader waited at most",
            "mq-deadline              40          20.0                 5100 ms",
            "bfq                     300          10.0                  900 ms",
            "mq-cfq                  280          12.0                  n/a ms",
            "(writes: what the page cache took in, not all of it on the disk yet)",
            "",
            "16 sequential readers of 16k, each of its own file, 256 MiB guest",
            "readahead             MiB/s",
            "stock                  20.0",
            "the series'             n/a"]))

    @unittest.skipUnless(shutil.which("gnuplot"), "needs gnuplot")
    def test_plot(self):
        png = os.path.join(self.tmp, "demo.png")
        out = self.run_demo(png)
        self.assertIn(f"plot: {png}", out)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_a_run_without_the_cell(self):
        with self.assertRaises(SystemExit) as e:
            demo.main(["demo.py", self.streams, self.streams, "x.png"])
        self.assertIn("has no complete seed001-heavy measurement", str(e.exception))


if __name__ == "__main__":
    unittest.main()
