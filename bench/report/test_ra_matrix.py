# SPDX-License-Identifier: GPL-2.0
"""ra_matrix.py: one table row per cell, profile, guest memory and thread
count of R31, with the ratio to the best stock window and its interval,
the fastest window's amplification ratio and the row's verdict."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ra_matrix  # noqa: E402
import report  # noqa: E402
from test_report import COMMON  # noqa: E402

WINDOW = "mq-deadline-rastock@read_ahead_kb=2048"
# label -> per-rep (reader_kbps, read_amplification) at 16 threads
SEQ16K = {"mq-deadline": [(99000, 1.00), (100000, 1.00), (101000, 1.00)],
          "mq-deadline-rastock": [(50000, 1.00)] * 3,
          WINDOW: [(109000, 1.05), (110000, 1.05), (111000, 1.05)]}


def records(cell="seed002-seq16k-once"):
    return [dict(COMMON, cell=cell, seed="002",
                 title="seq16k", threads=16, bs="16k", scheduler=label,
                 rep=rep, complete=True,
                 metrics={"reader_kbps": kbps, "read_amplification": amp})
            for label, reps in SEQ16K.items()
            for rep, (kbps, amp) in enumerate(reps, 1)]


def summary(run_id="20261205-1", mem=256, cell="seed002-seq16k-once"):
    cells = report.aggregate(records(cell), "mq-deadline")
    return {"run": {"run": run_id, "mem_mib": [mem]},
            "targets": report.evaluate_targets(cells)}


class Rows(unittest.TestCase):
    def test_one_row_per_thread_count_with_both_checks(self):
        rows = ra_matrix.matrix_rows([summary()])
        self.assertEqual(len(rows), 1)
        row = rows[0]
        self.assertEqual((row["cell"], row["profile"], row["memory"],
                          row["threads"]), ("seed002-seq16k-once", "hdd",
                                            "256", 16))
        self.assertAlmostEqual(row["kbps"]["ratio"], 100000 / 110000)
        self.assertEqual(row["kbps"]["reference"], WINDOW)
        self.assertAlmostEqual(row["amplification"]["ratio"], 1 / 1.05)
        self.assertEqual(row["verdict"], "missed")

    def test_a_row_missing_a_check_is_not_met(self):
        judged = summary()
        for target in judged["targets"]:
            target["checks"] = [c for c in target["checks"]
                                if c["metric"] == "read_amplification"]
        rows = ra_matrix.matrix_rows([judged])
        self.assertIsNone(rows[0]["kbps"])
        self.assertEqual(rows[0]["amplification"]["verdict"], "met")
        self.assertEqual(rows[0]["verdict"], "n/a")

    def test_a_timed_stream_is_judged_on_throughput_alone(self):
        rows = ra_matrix.matrix_rows([summary(cell="seed002-seq16k")])
        self.assertIsNone(rows[0]["amplification"])
        self.assertEqual(rows[0]["verdict"], "missed")
        text = ra_matrix.markdown(rows, [])
        self.assertIn("| in seed002-seq16k-once |", text)

    def test_table_and_counts(self):
        text = ra_matrix.markdown(ra_matrix.matrix_rows(
            [summary(), summary("20261205-2", 1024)]), [])
        rows = [line for line in text.splitlines()
                if line.startswith("| seed002")]
        self.assertEqual(len(rows), 2)
        self.assertIn("| 0.91x (", rows[0])
        self.assertIn("| rastock@2048 |", rows[0])
        self.assertIn("| 1024 |", rows[1])
        self.assertIn("Rows: 2 missed", text)


if __name__ == "__main__":
    unittest.main()
