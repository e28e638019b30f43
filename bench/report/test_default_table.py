# SPDX-License-Identifier: GPL-2.0
"""Tests for default_table.py: candidates against mq-deadline on
rotational queues only, latencies turned so that below 1 is a loss, and
the verdict by the interval.

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
import default_table  # noqa: E402  (needs the sys.path entry above)


def records(scheduler, profile, rotational, metrics):
    """Five repetitions of seed004-writers under @scheduler, each metric
    at the mean it is given, 1 % apart between repetitions."""
    for rep in range(5):
        yield {"cell": "seed004-writers", "profile": profile, "disk": "sata",
               "rotational": rotational, "threads": None, "rep": rep,
               "scheduler": scheduler, "complete": True,
               "metrics": {name: value * (1 + (rep - 2) / 100)
                           for name, value in metrics.items()}}


def write_run(run_dir, groups):
    with open(os.path.join(run_dir, "results.jsonl"), "w",
              encoding="utf-8") as results:
        for group in groups:
            for record in group:
                results.write(json.dumps(record) + "\n")


class DefaultTable(unittest.TestCase):

    def setUp(self):
        self.run_dir = tempfile.mkdtemp(prefix="default-table-")
        self.addCleanup(shutil.rmtree, self.run_dir, ignore_errors=True)

    def table(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = default_table.main(list(argv) + [self.run_dir])
        return status, out.getvalue(), err.getvalue()

    def test_losses_on_rotational_queues_only(self):
        write_run(self.run_dir, [
            records("mq-deadline", "hdd", 1,
                    {"writer_kbps": 1000, "gap_max_ms": 400}),
            records("mq-as", "hdd", 1,
                    {"writer_kbps": 500, "gap_max_ms": 800}),
            # A flash queue is no candidate's business here.
            records("mq-deadline", "ssd", 0, {"writer_kbps": 1000}),
            records("mq-as", "ssd", 0, {"writer_kbps": 10})])
        rows = default_table.table_rows([self.run_dir], "mq-as")
        self.assertEqual([(r["profile"], r["metric"]) for r in rows],
                         [("hdd", "gap_max_ms"), ("hdd", "writer_kbps")])
        # A gap twice as long is a loss, as is half the throughput.
        for row in rows:
            self.assertAlmostEqual(row["ratio"], 0.5, places=6)
            self.assertEqual(row["verdict"], default_table.LOSES)

    def test_holds_and_within_noise(self):
        write_run(self.run_dir, [
            records("mq-deadline", "hdd", 1,
                    {"reader_kbps": 1000, "writer_kbps": 1000}),
            records("mq-cfq", "hdd", 1,
                    {"reader_kbps": 2000, "writer_kbps": 950})])
        verdicts = {r["metric"]: r["verdict"]
                    for r in default_table.table_rows([self.run_dir],
                                                      "mq-cfq")}
        self.assertEqual(verdicts, {"reader_kbps": default_table.HOLDS,
                                    "writer_kbps": "within noise"})

    def test_the_table_counts_losses_first(self):
        write_run(self.run_dir, [
            records("mq-deadline", "hdd", 1,
                    {"reader_kbps": 1000, "writer_kbps": 1000}),
            records("mq-as", "hdd", 1,
                    {"reader_kbps": 3000, "writer_kbps": 400})])
        status, out, _ = self.table("--candidates", "mq-as")
        self.assertEqual(status, 0)
        self.assertIn("2 figures, 1 lose more than 5 %", out)
        rows = [line for line in out.splitlines()
                if line.startswith("| ") and "seed004" in line]
        self.assertIn("writer_kbps | 0.40x", rows[0])
        self.assertTrue(rows[0].endswith("| loses |"))

    def test_a_missing_run_is_an_error(self):
        os.rmdir(self.run_dir)
        self.addCleanup(os.makedirs, self.run_dir)
        status, out, err = self.table()
        self.assertEqual(status, 1)
        self.assertEqual(out, "")
        self.assertIn("default_table.py: error: no results file", err)

    def test_no_candidate_is_refused(self):
        with contextlib.redirect_stderr(io.StringIO()):
            with self.assertRaises(SystemExit) as exit_:
                default_table.main(["--candidates", " ", self.run_dir])
        self.assertEqual(exit_.exception.code, 2)


if __name__ == "__main__":
    unittest.main()
