# SPDX-License-Identifier: GPL-2.0
"""Tests for report.py (the real CLI on a synthetic run directory, and its
mq-cfq targets), for collect.py's parsing of the guest's output and for the
jobs' completion gaps.

Run: python3 -m unittest discover -s bench/report -v
"""

import contextlib
import importlib.util
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
sys.path[:0] = [HERE, BENCH]
import collect  # noqa: E402  (needs the sys.path entries above)
import report  # noqa: E402

SCRIPT = os.path.join(HERE, "report.py")


def load_script(name):
    """A script of bench/ as a module (its file name has a hyphen)."""
    spec = importlib.util.spec_from_file_location(
        name.replace("-", "_"), os.path.join(BENCH, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

TESTDATA = os.path.join(HERE, "testdata")
JOBS_LIB = os.path.join(BENCH, "jobs", "lib.sh")
HAVE_GNUPLOT = shutil.which("gnuplot") is not None
MALFORMED_LINE = 5

COMMON = {"run": "20261130-0130", "kernel": "6.12.117", "series": "a5b9a3f",
          "profile": "hdd", "disk": "sata", "mem_mib": 1024}

# (threads, scheduler) -> per-rep (read_kbps, read_lat_max_ms).  The numbers
# are picked so that means, CVs and %diffs are exact and easy to check.
RANDREAD = {
    (1, "none"): [(100, 10), (100, 10), (100, 10)],
    (1, "mq-deadline"): [(200, 8), (200, 8), (200, 8)],
    (1, "bfq"): [(250, 5), (260, 5), (270, 5)],        # CV 3.8%, +30%
    (4, "none"): [(300, 40), (300, 40), (300, 40)],
    (4, "mq-deadline"): [(400, 25), (400, 25), (400, 25)],
    (4, "bfq"): [(100, 20), (200, 20), (300, 20)],     # CV 50% -> '!'
}
INCOMPLETE = (4, "bfq", 2)  # the interrupted measurement -> '*'


def randread_records():
    for (threads, scheduler), reps in RANDREAD.items():
        for rep, (kbps, lat) in enumerate(reps):
            yield dict(COMMON, cell="seed000-mmap-randread", seed="000",
                       title="random reads through mmap, 64 KiB",
                       threads=threads, bs="64k", scheduler=scheduler, rep=rep,
                       metrics={"read_kbps": kbps, "read_lat_max_ms": lat},
                       complete=(threads, scheduler, rep) != INCOMPLETE)


def build_records():
    """Single-configuration cell: no threads, one repetition, lower-better."""
    for scheduler, seconds in (("mq-deadline", 0.5), ("bfq", 0.25)):
        yield dict(COMMON, cell="seed003-build", seed="003",
                   title="kernel build", scheduler=scheduler, rep=0,
                   metrics={"seconds_per_loadfile": seconds}, complete=True)


def write_results(run_dir, lines):
    with open(os.path.join(run_dir, "results.jsonl"), "w",
              encoding="utf-8") as results:
        results.writelines(line + "\n" for line in lines)


def synthetic_lines():
    lines = [json.dumps(r) for r in list(randread_records())
             + list(build_records())]
    lines.insert(MALFORMED_LINE - 1, '{"cell": "seed000", "metrics": ')
    return lines


def run_report(run_dir, *args, env=None):
    return subprocess.run([sys.executable, SCRIPT, run_dir, *args],
                          capture_output=True, text=True, env=env,
                          timeout=120, check=False)


def find_stat(summary, cell, metric, threads, scheduler):
    for entry in summary["cells"]:
        if entry["cell"] != cell:
            continue
        for row in entry["metrics"][metric]["rows"]:
            if row["threads"] == threads:
                return row["schedulers"][scheduler]
    raise KeyError((cell, metric, threads, scheduler))


class SyntheticRun(unittest.TestCase):
    """One CLI run shared by the checks on its outputs."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.run_dir = os.path.join(cls.tmp.name, "20261130-0130")
        os.mkdir(cls.run_dir)
        write_results(cls.run_dir, synthetic_lines())
        cls.result = run_report(cls.run_dir)
        with open(os.path.join(cls.run_dir, "report.md"),
                  encoding="utf-8") as md:
            cls.markdown = md.read()
        with open(os.path.join(cls.run_dir, "summary.json"),
                  encoding="utf-8") as js:
            cls.summary = json.load(js)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def stat(self, metric, threads, scheduler, cell="seed000-mmap-randread"):
        return find_stat(self.summary, cell, metric, threads, scheduler)

    def test_exit_status_and_printed_path(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        self.assertEqual(self.result.stdout.strip(),
                         os.path.join(self.run_dir, "report.md"))

    def test_malformed_line_is_warned_with_its_number(self):
        self.assertIn(f"line {MALFORMED_LINE}", self.result.stderr)
        self.assertEqual(self.summary["run"]["measurements"],
                         len(synthetic_lines()) - 1)

    def test_summary_mean_cv_diff(self):
        bfq = self.stat("read_kbps", 1, "bfq")
        self.assertAlmostEqual(bfq["mean"], 260.0)
        self.assertAlmostEqual(bfq["cv_pct"], 10 / 260 * 100)
        self.assertAlmostEqual(bfq["diff_pct"], 30.0)
        self.assertEqual(bfq["n"], 3)
        self.assertFalse(bfq["incomplete"])
        self.assertAlmostEqual(self.stat("read_kbps", 1, "none")["diff_pct"],
                               -50.0)
        self.assertIsNone(self.stat("read_kbps", 1, "mq-deadline")["diff_pct"])
        noisy = self.stat("read_kbps", 4, "bfq")
        self.assertAlmostEqual(noisy["cv_pct"], 50.0)
        self.assertTrue(noisy["incomplete"])
        self.assertAlmostEqual(self.stat("read_lat_max_ms", 4, "bfq")
                               ["diff_pct"], -20.0)

    def test_single_repetition_has_no_cv(self):
        bfq = self.stat("seconds_per_loadfile", None, "bfq",
                        cell="seed003-build")
        self.assertIsNone(bfq["cv_pct"])
        self.assertAlmostEqual(bfq["diff_pct"], -50.0)

    def test_direction_and_best(self):
        metrics = self.summary["cells"][0]["metrics"]
        self.assertEqual(metrics["read_kbps"]["better"], "higher")
        self.assertEqual(metrics["read_lat_max_ms"]["better"], "lower")
        rows = metrics["read_kbps"]["rows"]
        self.assertEqual([r["best"] for r in rows], [["bfq"], ["mq-deadline"]])

    def test_header(self):
        for expected in ("# Benchmark run 20261130-0130", "- kernel: 6.12.117",
                         "- series: a5b9a3f", "- profiles: hdd",
                         "- disk kinds: sata", "- repetitions: 1-3",
                         "- measurements: 20 (1 incomplete)"):
            self.assertIn(expected, self.markdown)

    def test_table_rows(self):
        for row in (
                "| read_kbps ↑ better | none | mq-deadline (base) | bfq |",
                "| 1 thread | 100 (0.0%) -50% | 200 (0.0%) | 260 (3.8%) +30% |",
                "| 4 threads | 300 (0.0%) -25% | 400 (0.0%) "
                "| 200 (50.0%)! -50%* |",
                "| read_lat_max_ms ↓ better | none | mq-deadline (base) | bfq |",
                "| 4 threads | 40 (0.0%) +60% | 25 (0.0%) | 20 (0.0%) -20%* |",
                "| seconds_per_loadfile ↓ better | mq-deadline (base) | bfq |",
                "| - | 0.5 (-) | 0.25 (-) -50% |"):
            self.assertIn(row, self.markdown)

    def test_footnotes_and_best_line(self):
        self.assertIn("CV above 5%", self.markdown)
        self.assertIn("incomplete", self.markdown)
        self.assertIn("**Best:** read_kbps ↑ bfq (1 thread), mq-deadline "
                      "(4 threads); read_lat_max_ms ↓ bfq (all thread counts)",
                      self.markdown)
        self.assertIn("**Best:** seconds_per_loadfile ↓ bfq", self.markdown)

    def test_low_cv_cell_has_no_marker(self):
        self.assertNotIn("(3.8%)!", self.markdown)
        self.assertNotIn("(0.0%)!", self.markdown)

    @unittest.skipUnless(HAVE_GNUPLOT, "gnuplot not installed")
    def test_plots_exist_and_are_linked(self):
        for metric in ("read_kbps", "read_lat_max_ms"):
            name = f"plot-seed000-mmap-randread-{metric}.png"
            with open(os.path.join(self.run_dir, name), "rb") as png:
                self.assertEqual(png.read(8), b"\x89PNG\r\n\x1a\n")
            self.assertIn(f"]({name})", self.markdown)
        self.assertFalse(os.path.exists(os.path.join(
            self.run_dir, "plot-seed003-build-seconds_per_loadfile.png")))


class Failures(unittest.TestCase):
    """Unusable input must fail loudly with exit status 1."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def assert_one_line_error(self, result):
        self.assertEqual(result.returncode, 1)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1)
        self.assertIn("error", result.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name,
                                                     "report.md")))

    def test_missing_results_file(self):
        result = run_report(self.tmp.name)
        self.assert_one_line_error(result)
        self.assertIn("results.jsonl", result.stderr)

    def test_empty_results_file(self):
        write_results(self.tmp.name, [])
        self.assert_one_line_error(run_report(self.tmp.name))


class Options(unittest.TestCase):
    """Baseline choice and the no-gnuplot fallback."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        write_results(self.tmp.name, [json.dumps(r) for r in randread_records()])

    def summary(self):
        with open(os.path.join(self.tmp.name, "summary.json"),
                  encoding="utf-8") as js:
            return json.load(js)

    def test_baseline_option(self):
        result = run_report(self.tmp.name, "--baseline", "bfq")
        self.assertEqual(result.returncode, 0, result.stderr)
        mq = find_stat(self.summary(), "seed000-mmap-randread", "read_kbps",
                       4, "mq-deadline")
        self.assertAlmostEqual(mq["diff_pct"], 100.0)

    def test_absent_baseline_falls_back_to_first_scheduler(self):
        result = run_report(self.tmp.name, "--baseline", "mq-cfq")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("mq-cfq", result.stderr)
        self.assertEqual(self.summary()["cells"][0]["baseline"], "none")

    def test_without_gnuplot_report_still_written(self):
        empty_path = os.path.join(self.tmp.name, "empty-bin")
        os.mkdir(empty_path)
        result = run_report(self.tmp.name, env=dict(os.environ,
                                                    PATH=empty_path))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr.count("gnuplot"), 1)
        with open(os.path.join(self.tmp.name, "report.md"),
                  encoding="utf-8") as md:
            self.assertNotIn("![", md.read())


# Means per scheduler of the target fixtures.  seed004-writers:
# (gap_max_ms, reader_kbps, writer_kbps); seed001-dbench:
# seconds_per_loadfile per client count (best stock: 270 s and 400 s).
WRITERS = {"none": (2100, 20, 120000), "mq-deadline": (1800, 19, 100000),
           "kyber": (1500, 22, 110000), "bfq": (900, 100, 90000),
           "bfq-lowlat0": (1200, 40, 95000),
           "mq-cfq": (400, 60, 96000)}      # 0.6x bfq, 0.96x mq-deadline
DBENCH = {1: {"none": 300, "mq-deadline": 280, "kyber": 290, "bfq": 310,
              "bfq-lowlat0": 270, "mq-cfq": 270},      # 1.0x best stock
          4: {"none": 500, "mq-deadline": 400, "kyber": 450, "bfq": 900,
              "bfq-lowlat0": 420, "mq-cfq": 416}}      # 1.04x best stock
MMAP_4_THREADS = {"none": 550, "mq-deadline": 500, "kyber": 548,
                  "bfq": 600, "bfq-lowlat0": 3000, "mq-cfq": 1100}


def target_records(cell, threads, means, names=None):
    """One record per scheduler of @means {scheduler: {metric: value}}."""
    for scheduler, metrics in means.items():
        if names is None or scheduler in names:
            yield dict(COMMON, cell=cell, seed=cell[4:7], title=cell,
                       threads=threads, bs="-", scheduler=scheduler, rep=1,
                       metrics=metrics, complete=True)


def writers_records(candidate=None):
    """seed004-writers; @candidate replaces mq-cfq's figures."""
    figures = dict(WRITERS, **({"mq-cfq": candidate} if candidate else {}))
    means = {name: dict(zip(("gap_max_ms", "reader_kbps", "writer_kbps"),
                            values)) for name, values in figures.items()}
    return list(target_records("seed004-writers", None, means))


def dbench_records(names=None):
    return [record for threads, row in DBENCH.items()
            for record in target_records(
                "seed001-dbench", threads,
                {name: {"seconds_per_loadfile": seconds}
                 for name, seconds in row.items()}, names)]


def mmap_records():
    means = {name: {"reader_kbps": kbps}
             for name, kbps in MMAP_4_THREADS.items()}
    return list(target_records("seed000-mmap-64k", 4, means))


def targets_of(records):
    """Target id (with profile for T14) -> evaluated result."""
    results = report.evaluate_targets(report.aggregate(records,
                                                       "mq-deadline"))
    return {(r["target"], r["profile"]): r for r in results}


class ReadaheadTargets(unittest.TestCase):
    """Adaptive readahead against the stock algorithm of the same run."""

    @staticmethod
    def seq_records(kbps_by_threads):
        return [record for threads, (adaptive, stock) in
                kbps_by_threads.items()
                for record in target_records(
                    "seed002-seq16k", threads,
                    {"mq-deadline": {"reader_kbps": adaptive,
                                     "read_amplification": 1.0},
                     "mq-deadline-rastock": {"reader_kbps": stock,
                                             "read_amplification": 1.0}})]

    def test_judged_against_the_stock_algorithm(self):
        results = targets_of(self.seq_records(
            {1: (99000, 100000), 16: (60000, 40000), 64: (50000, 40000)}))
        self.assertEqual(results[("R12", "hdd")]["verdict"], "met")
        r11 = [c for c in results[("R11", "hdd")]["checks"]
               if c["factor"] == 1.5]
        self.assertEqual([(c["threads"], c["verdict"]) for c in r11],
                         [(16, "met"), (64, "missed")])
        self.assertEqual(r11[1]["reference"], "mq-deadline-rastock")
        self.assertAlmostEqual(r11[1]["ratio"], 1.25)
        self.assertEqual(results[("R10", "hdd")]["reason"],
                         "cell not in this run")

    def test_judged_against_the_best_fixed_window_too(self):
        fixed = "mq-deadline-rastock@read_ahead_kb=1024"
        records = self.seq_records({1: (99000, 90000), 16: (60000, 40000)})
        records += [record for threads, kbps in ((1, 100000), (16, 58000))
                    for record in target_records(
                        "seed002-seq16k", threads,
                        {fixed: {"reader_kbps": kbps,
                                 "read_amplification": 1.0}})]
        results = targets_of(records)
        r12 = results[("R12", "hdd")]
        self.assertEqual(r12["checks"][0]["reference"], fixed)
        self.assertAlmostEqual(r12["checks"][0]["ratio"], 0.99)
        self.assertEqual(r12["verdict"], "met")
        r11 = {(c["threads"], c["factor"]): c
               for c in results[("R11", "hdd")]["checks"]}
        self.assertEqual(r11[(16, 1.5)]["reference"], "mq-deadline-rastock")
        self.assertEqual(r11[(16, 1.5)]["verdict"], "met")
        self.assertEqual(r11[(16, 0.98)]["reference"], fixed)
        self.assertEqual(r11[(16, 0.98)]["verdict"], "met")
        self.assertAlmostEqual(r11[(16, 0.98)]["ratio"], 60000 / 58000)

    def test_read_amplification_against_the_window_best_at_throughput(self):
        fixed = "mq-deadline-rastock@read_ahead_kb=2048"
        means = {"mq-deadline": (100000, 1.10),
                 "mq-deadline-rastock": (60000, 1.00),
                 fixed: (99000, 1.20)}
        records = list(target_records(
            "seed002-seq16k-once", 16,
            {name: {"reader_kbps": kbps, "read_amplification": amp}
             for name, (kbps, amp) in means.items()}))
        checks = [c for c in targets_of(records)[("R17", "hdd")]["checks"]
                  if c["metric"] == "read_amplification"]
        self.assertEqual(len(checks), 1)
        self.assertEqual(checks[0]["against"], report.RA_FASTEST_WINDOW)
        self.assertEqual(checks[0]["reference"], fixed)
        self.assertAlmostEqual(checks[0]["ratio"], 1.10 / 1.20)
        self.assertEqual(checks[0]["verdict"], "met")

    def test_every_cell_beside_a_fixed_window_is_judged(self):
        fixed = "mq-deadline-rastock@read_ahead_kb=512"
        means = {"mq-deadline": (90000, 1.0), fixed: (100000, 1.0),
                 "mq-deadline-rastock": (80000, 1.0)}
        records = [record for cell in ("seed002-partial", "seed002-rand16k")
                   for record in target_records(
                       cell, 1, {name: {"reader_kbps": kbps,
                                        "read_amplification": amp}
                                 for name, (kbps, amp) in means.items()})]
        records += target_records("seed001-fsync", 1,
                                  {"mq-deadline": {"reader_kbps": 1.0}})
        results = report.evaluate_targets(report.aggregate(records,
                                                           "mq-deadline"))
        every = {r["cell"]: r for r in results if r["target"] == "R31"}
        self.assertEqual(sorted(every), ["seed002-partial",
                                         "seed002-rand16k"])
        kbps = every["seed002-partial"]["checks"][0]
        self.assertEqual(kbps["reference"], fixed)
        self.assertAlmostEqual(kbps["ratio"], 0.9)
        self.assertEqual(every["seed002-partial"]["verdict"], "missed")

    @staticmethod
    def metrics_judged(cells):
        """{(target, cell): the metrics it judged} for a run of @cells at
        64 threads, each label the same in every cell."""
        fixed = "mq-deadline-rastock@read_ahead_kb=512"
        means = {"mq-deadline": (100000, 1.20), fixed: (95000, 1.09),
                 "mq-deadline-rastock": (50000, 1.05)}
        records = [record for cell in cells
                   for record in target_records(
                       cell, 64, {name: {"reader_kbps": kbps,
                                         "read_amplification": amp}
                                  for name, (kbps, amp) in means.items()})]
        results = report.evaluate_targets(report.aggregate(records,
                                                           "mq-deadline"))
        return {(r["target"], r["cell"]): sorted({c["metric"]
                                                  for c in r["checks"]})
                for r in results if r["checks"]}

    def test_timed_streams_read_amplification_judged_reading_once(self):
        judged = self.metrics_judged(("seed002-seq16k", "seed002-seq16k-once"))
        self.assertEqual(judged[("R31", "seed002-seq16k")], ["reader_kbps"])
        self.assertEqual(judged[("R11", "seed002-seq16k")], ["reader_kbps"])
        self.assertEqual(judged[("R31", "seed002-seq16k-once")],
                         ["read_amplification", "reader_kbps"])
        self.assertEqual(judged[("R17", "seed002-seq16k-once")],
                         ["read_amplification", "reader_kbps"])

    def test_squeeze_read_amplification_judged_reading_once(self):
        judged = self.metrics_judged(("seed002-squeeze",
                                      "seed002-squeeze-once"))
        self.assertEqual(judged[("R14", "seed002-squeeze")], ["reader_kbps"])
        self.assertEqual(judged[("R31", "seed002-squeeze")], ["reader_kbps"])
        self.assertEqual(judged[("R19", "seed002-squeeze-once")],
                         ["read_amplification", "reader_kbps"])

    def test_every_cell_not_judged_without_the_stock_label(self):
        fixed = "mq-deadline-rastock@read_ahead_kb=512"
        records = list(target_records(
            "seed002-rand16k", 1,
            {"mq-deadline": {"reader_kbps": 1.0}, fixed: {"reader_kbps": 1.0}}))
        results = report.evaluate_targets(report.aggregate(records,
                                                           "mq-deadline"))
        self.assertFalse([r for r in results if r["target"] == "R31"])

    def test_every_cell_not_judged_without_a_fixed_window(self):
        results = report.evaluate_targets(report.aggregate(
            self.seq_records({16: (60000, 40000)}), "mq-deadline"))
        self.assertFalse([r for r in results if r["target"] == "R31"])

    def test_not_judged_without_the_stock_label(self):
        records = [r for r in self.seq_records({16: (60000, 40000)})
                   if r["scheduler"] == "mq-deadline"]
        self.assertFalse(any(key[0].startswith("R")
                             for key in targets_of(records)))


class Targets(unittest.TestCase):
    """mq-cfq's targets against the stock schedulers of the same run."""

    def test_met(self):
        result = targets_of(writers_records())[("T16", "hdd")]
        self.assertEqual(result["verdict"], "met")
        self.assertEqual([c["verdict"] for c in result["checks"]],
                         ["met"] * 3)
        gap, reader, writer = result["checks"]
        self.assertEqual(gap["value"], 400)
        self.assertAlmostEqual(reader["ratio"], 0.6)
        self.assertEqual(reader["reference"], "bfq")
        self.assertAlmostEqual(writer["ratio"], 0.96)
        self.assertEqual(report.target_line(result),
                         "T16 seed004-writers [hdd]: met; gap_max_ms 400 ms "
                         "(<= 500 ms): met; reader_kbps 0.60x bfq "
                         "(>= 0.5x bfq): met; writer_kbps 0.96x mq-deadline "
                         "(>= 0.95x mq-deadline): met")

    def test_met_at_every_client_count_against_best_stock(self):
        result = targets_of(dbench_records())[("T13", "hdd")]
        self.assertEqual(result["verdict"], "met")
        self.assertEqual([(c["threads"], c["reference"]) for c in
                          result["checks"]],
                         [(1, "bfq-lowlat0"), (4, "mq-deadline")])
        self.assertAlmostEqual(result["checks"][1]["ratio"], 1.04)

    def test_missed(self):
        result = targets_of(writers_records(
            candidate=(600, 60, 96000)))[("T16", "hdd")]
        self.assertEqual(result["verdict"], "missed")
        self.assertEqual([c["verdict"] for c in result["checks"]],
                         ["missed", "met", "met"])
        self.assertIn("gap_max_ms 600 ms (<= 500 ms): missed",
                      report.target_line(result))

    def test_missed_at_one_client_count(self):
        records = dbench_records()
        records[-1]["metrics"]["seconds_per_loadfile"] = 424  # 1.06x
        result = targets_of(records)[("T13", "hdd")]
        self.assertEqual(result["verdict"], "missed")
        self.assertEqual([c["verdict"] for c in result["checks"]],
                         ["met", "missed"])

    def noisy_dbench(self, spread):
        """Three repetitions at 4 clients: mq-cfq 1.04x mq-deadline (the best
        stock), each scheduler's runs @spread apart around its mean."""
        records = []
        for rep, sign in enumerate((-1, 0, 1), start=1):
            for record in dbench_records():
                seconds = record["metrics"]["seconds_per_loadfile"]
                records.append(dict(record, rep=rep, metrics={
                    "seconds_per_loadfile": seconds * (1 + sign * spread)}))
        return targets_of(records)[("T13", "hdd")]

    def test_within_noise(self):
        result = self.noisy_dbench(0.15)
        self.assertEqual(result["verdict"], "within noise")
        check = result["checks"][1]
        self.assertEqual(check["verdict"], "within noise")
        half_width = 2.7764 * 0.15 * math.sqrt(2 / 3)  # t(0.975, 4 df)
        for got, want in zip(check["interval"], (-half_width, half_width)):
            self.assertAlmostEqual(got, 1.04 * math.exp(want), places=3)
        self.assertIn("1.04x mq-deadline (95% CI 0.74-1.46x) "
                      "(<= 1.05x best stock): within noise",
                      report.target_line(result))

    def test_three_repetitions_need_t_not_two_standard_errors(self):
        """2.4 standard errors from the requirement: "met" by a normal
        rule, within noise by Student's t with 4 degrees of freedom."""
        check = self.noisy_dbench(0.0049)["checks"][1]
        self.assertEqual(check["verdict"], "within noise")

    def test_quiet_repetitions_decide(self):
        result = self.noisy_dbench(0.002)
        self.assertEqual([c["verdict"] for c in result["checks"]],
                         ["met", "met"])
        self.assertEqual(result["verdict"], "met")

    def test_student_t_quantiles(self):
        for df, quantile in ((1, 12.706), (2, 4.303), (4, 2.776),
                             (30, 2.042), (1e6, 1.960)):
            self.assertAlmostEqual(report.t_quantile(0.975, df), quantile,
                                   places=2)

    def test_welch_degrees_of_freedom(self):
        same = {"cv_pct": 10.0, "n": 3}
        self.assertAlmostEqual(report.welch_df([same, same]), 4.0)
        lone = {"cv_pct": 10.0, "n": 5}
        self.assertAlmostEqual(report.welch_df([lone]), 4.0)

    def test_missed_outweighs_noise(self):
        checks = [{"verdict": "within noise"}, {"verdict": "missed"}]
        self.assertEqual(report.overall_verdict(checks), "missed")
        self.assertEqual(report.overall_verdict(checks[:1]), "within noise")

    def test_absent_cell_is_never_met(self):
        results = targets_of(writers_records())
        for key in (("T12", "hdd"), ("T13", "hdd"), ("T14", "hdd"),
                    ("T14", "raid4"), ("T15", "hdd"), ("T17", "raw")):
            self.assertEqual(results[key]["verdict"], "n/a")
            self.assertTrue(report.target_line(results[key]).endswith(
                ": n/a: cell not in this run"), key)

    def test_missing_thread_count_is_not_met(self):
        result = targets_of(mmap_records())[("T14", "hdd")]
        self.assertEqual([(c["threads"], c["verdict"]) for c in
                          result["checks"]],
                         [(4, "met"), (16, "n/a"), (4, "met"), (16, "n/a")])
        self.assertEqual(result["verdict"], "n/a")
        self.assertIn("16 threads not in this run",
                      report.target_line(result))

    def test_best_stock_needs_every_stock_scheduler(self):
        names = set(report.STOCK + (report.CANDIDATE,)) - {"kyber"}
        result = targets_of(dbench_records(names))[("T13", "hdd")]
        self.assertEqual(result["verdict"], "n/a")
        self.assertEqual(result["checks"][0]["reason"],
                         "kyber not in this run")

    def test_no_targets_without_the_candidate(self):
        names = set(report.STOCK)
        self.assertEqual(report.evaluate_targets(report.aggregate(
            dbench_records(names), "mq-deadline")), [])


class AnticipatoryTargets(unittest.TestCase):
    """mq-as's targets (A): judged when it ran, in the same way."""

    def test_judged_when_mq_as_ran(self):
        records = writers_records() + list(target_records(
            "seed004-writers", None,
            {"mq-as": {"gap_max_ms": 450, "reader_kbps": 40,
                       "writer_kbps": 97000}}))
        result = targets_of(records)[("A16", "hdd")]
        verdicts = [(c["metric"], c["verdict"]) for c in result["checks"]]
        # 40 KB/s is 0.4x bfq's 100: short of 0.5x.
        self.assertEqual(verdicts, [("gap_max_ms", "met"),
                                    ("reader_kbps", "missed"),
                                    ("writer_kbps", "met")])
        self.assertEqual(result["verdict"], "missed")

    def test_not_judged_without_mq_as(self):
        self.assertNotIn(("A16", "hdd"), targets_of(writers_records()))

    def test_total_against_the_best_stock_total(self):
        means = {name: {"reader_kbps": 1000, "total_kbps": total}
                 for name, total in (("none", 9000), ("mq-deadline", 10000),
                                     ("kyber", 9500), ("bfq", 8000),
                                     ("bfq-lowlat0", 8500),
                                     ("mq-as", 9600))}
        result = targets_of(list(target_records("seed003-dd", None, means)))
        total = [c for c in result[("A15", "hdd")]["checks"]
                 if c["metric"] == "total_kbps"]
        # 9600 is 0.96x mq-deadline's 10000: short of 0.97x.
        self.assertEqual([c["verdict"] for c in total], ["missed"])


class TargetsReport(unittest.TestCase):
    """The verdicts in report.md, summary.json and on stdout."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def run_on(self, records):
        write_results(self.tmp.name, [json.dumps(r) for r in records])
        result = run_report(self.tmp.name, env=dict(os.environ, PATH=""))
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(self.tmp.name, "report.md"),
                  encoding="utf-8") as md:
            return result.stdout.splitlines(), md.read()

    def test_failed_measurements_are_listed_not_skipped(self):
        failed = {"run": "r", "cell": "seed001-dbench", "scheduler": "bfq",
                  "rep": 2, "failed": "preparing seed001-dbench failed"}
        write_results(self.tmp.name, [json.dumps(r) for r in
                                      dbench_records() + [failed]])
        result = run_report(self.tmp.name, env=dict(os.environ, PATH=""))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("results.jsonl line", result.stderr)
        with open(os.path.join(self.tmp.name, "report.md"),
                  encoding="utf-8") as md:
            markdown = md.read()
        self.assertIn("- failed measurements: 1", markdown)
        self.assertIn("- seed001-dbench bfq rep 2: preparing seed001-dbench "
                      "failed", markdown)

    def test_verdicts_printed_and_in_report(self):
        stdout, markdown = self.run_on(writers_records() + dbench_records())
        self.assertEqual(len(stdout), len(report.TARGETS) + 1)
        self.assertEqual(stdout[-1], os.path.join(self.tmp.name,
                                                  "report.md"))
        self.assertIn("T13 seed001-dbench [hdd]: met; seconds_per_loadfile "
                      "at 1 thread 1.00x bfq-lowlat0 (<= 1.05x best stock): "
                      "met; seconds_per_loadfile at 4 threads 1.04x "
                      "mq-deadline (<= 1.05x best stock): met", stdout)
        self.assertIn("## Targets\n", markdown)
        self.assertIn("T targets: mq-cfq against the stock schedulers",
                      markdown)
        for line in stdout[:-1]:
            self.assertIn(f"- {line}\n", markdown)
        with open(os.path.join(self.tmp.name, "summary.json"),
                  encoding="utf-8") as js:
            verdicts = {(t["target"], t["profile"]): t["verdict"]
                        for t in json.load(js)["targets"]}
        self.assertEqual(verdicts[("T16", "hdd")], "met")
        self.assertEqual(verdicts[("T15", "hdd")], "n/a")

    def test_no_section_without_the_candidate(self):
        stdout, markdown = self.run_on(dbench_records(set(report.STOCK)))
        self.assertEqual(len(stdout), 1)
        self.assertNotIn("Targets", markdown)


class DbenchTimePerLoadfile(unittest.TestCase):
    """collect.py: seconds per load-file pass from real dbench output."""

    # dbench.sh's output in the guest: 4 clients, 10 s, bfq on the hdd
    # model.  Its execute lines go from 795 lines per client at 1 s to
    # 6609 at 9 s: 458344 lines / ((6609 - 795) / 8 per second).
    SAMPLE = os.path.join(TESTDATA, "dbench-hdd-4clients.txt")
    SECONDS = 458344 * 8 / (6609 - 795)

    def setUp(self):
        with open(self.SAMPLE, encoding="utf-8") as sample:
            self.text = sample.read()

    def test_from_the_pace_of_the_execute_lines(self):
        metrics = collect.metrics_of("dbench", self.text)
        self.assertAlmostEqual(metrics["seconds_per_loadfile"], self.SECONDS)
        self.assertAlmostEqual(metrics["seconds_per_loadfile"], 630.68, 2)
        self.assertEqual(metrics["dbench_mbps"], 14.1654)
        self.assertEqual(metrics["dbench_lat_max_ms"], 506.791)

    def test_needs_the_load_file_length(self):
        text = self.text.replace("loadfile ", "load file ")
        self.assertNotIn("seconds_per_loadfile",
                         collect.metrics_of("dbench", text))

    def test_needs_two_execute_lines(self):
        lines = [line for line in self.text.splitlines()
                 if " execute " not in line or " execute   9 sec" in line]
        self.assertNotIn("seconds_per_loadfile",
                         collect.metrics_of("dbench", "\n".join(lines)))


def fio_log(times_ms):
    """A per-I/O fio latency log: time, latency ns, direction, bs, offset."""
    return "".join(f"{t}, 2894123, 1, 65536, 0\n" for t in times_ms)


class ReadaheadCounters(unittest.TestCase):
    """bench/jobs/lib.sh's with_ra_counters (the guest's shell) and their
    collection as metrics."""

    def run_counted(self, env, command):
        """with_ra_counters COMMAND in the guest's shell; its stdout lines."""
        shell = shutil.which("busybox")  # the guest's sh and awk
        done = subprocess.run(
            ([shell, "sh"] if shell else ["sh"]) +
            ["-c", f". {JOBS_LIB} && with_ra_counters sh -c '{command}'"],
            env=dict(os.environ, **env), capture_output=True,
            text=True, timeout=60, check=True)
        return done.stdout.splitlines()

    def test_deltas_over_the_command(self):
        with tempfile.TemporaryDirectory() as tmp:
            vmstat = os.path.join(tmp, "vmstat")
            disk = os.path.join(tmp, "stat")
            with open(vmstat, "w", encoding="utf-8") as f:
                f.write("nr_free_pages 9\nra_thrash 5\nra_window_shrink 7\n"
                        "workingset_refault_file 40\n")
            with open(disk, "w", encoding="utf-8") as f:
                f.write("  100 3 8000 50 7 0 56 9 0 60 70\n")
            after = ("nr_free_pages 3\nra_thrash 17\nra_window_shrink 7\n"
                     "workingset_refault_file 52\n")
            lines = self.run_counted(
                {"VMSTAT": vmstat, "DISKSTAT": disk},
                f'printf \"{after}\" >{vmstat}; '
                f'echo \"  140 3 28480 90 7 0 56 9 0 99 99\" >{disk}; '
                f'echo ran')
        self.assertEqual(lines, ["ran", "vmstat ra_thrash 12",
                                 "vmstat ra_window_shrink 0",
                                 "vmstat workingset_refault_file 12",
                                 "disk_reads 40 20480"])

    def test_no_disk_line_without_the_device(self):
        with tempfile.TemporaryDirectory() as tmp:
            vmstat = os.path.join(tmp, "vmstat")
            with open(vmstat, "w", encoding="utf-8") as f:
                f.write("ra_thrash 5\n")
            lines = self.run_counted(
                {"VMSTAT": vmstat, "DISKSTAT": os.path.join(tmp, "none")},
                "echo ran")
        self.assertEqual(lines, ["ran", "vmstat ra_thrash 0"])

    def traced(self, cmdline, trace_lines):
        """with_ra_counters of a command that "traces" @trace_lines, with
        the kernel command line @cmdline; its stdout lines, and what the
        event's enable file was left at."""
        with tempfile.TemporaryDirectory() as tmp:
            tracefs = os.path.join(tmp, "tracing")
            event = os.path.join(tracefs, "events", "readahead",
                                 "readahead_window")
            os.makedirs(event)
            for name in ("trace", "tracing_on"):
                with open(os.path.join(tracefs, name), "w") as f:
                    f.write("stale  readahead_window: dev=8:0 ino=1 "
                            "index=0 req=1 grow start=0 size=999 "
                            "async_size=1 ra_pages=32\n")
            with open(os.path.join(event, "enable"), "w") as f:
                f.write("0\n")
            cmd = os.path.join(tmp, "cmdline")
            with open(cmd, "w") as f:
                f.write(cmdline + "\n")
            trace = os.path.join(tracefs, "trace")
            writes = "".join(f'echo "{line}" >>{trace}; '
                             for line in trace_lines)
            lines = self.run_counted(
                {"VMSTAT": os.path.join(tmp, "none"),
                 "DISKSTAT": os.path.join(tmp, "none"),
                 "CMDLINE": cmd, "TRACEFS": tracefs},
                writes + "echo ran")
            with open(os.path.join(event, "enable")) as f:
                enable = f.read().strip()
        return lines, enable

    def test_traced_windows_count_those_that_size_one(self):
        line = ("fio-1 [000] ..... 1.0: readahead_window: dev=8:0 ino=12 "
                "index=4 req=4 {} start=8 size={} async_size=4 ra_pages=32")
        lines, enable = self.traced("quiet iosched.ratrace=1 x=y", [
            line.format("initial", 16), line.format("grow", 64),
            line.format("random", 0), line.format("deferred", 64)])
        # 16 + 64 pages of 4 KiB; the stale line was cleared at the start.
        self.assertEqual(lines, ["ran", "ra_windows 2 320",
                                 "ra_grown 1 256 256"] + decided(
                                     deferred=1, grow=1, initial=1, random=1))
        self.assertEqual(enable, "0")

    def test_traced_grown_windows_median_and_largest(self):
        line = ("fio-1 [000] ..... 1.0: readahead_window: dev=8:0 ino=12 "
                "index=4 req=4 {} start=8 size={} async_size=4 ra_pages=32")
        lines, _ = self.traced("iosched.ratrace=1", [
            line.format("grow", 512), line.format("grow", 64),
            line.format("thrash", 2048), line.format("grow", 1024),
            line.format("grow", 256)])
        # Grown: 64, 256, 512 and 1024 pages; the thrash window is not one.
        self.assertEqual(lines, ["ran", "ra_windows 5 15616",
                                 "ra_grown 4 1024 4096"] + decided(
                                     grow=4, thrash=1))

    def test_no_window_traced(self):
        lines, _ = self.traced("iosched.ratrace=1", [])
        # Every decision is counted, untraced ones as 0; no grown line.
        self.assertEqual(lines, ["ran", "ra_windows 0 0"] + decided())

    def test_traced_decisions(self):
        metrics = collect.metrics_of(
            "fileset-seqread",
            "{}\nra_decided grow 40\nra_decided initial 3\n")
        self.assertEqual(metrics["ra_decided_grow"], 40.0)
        self.assertEqual(metrics["ra_decided_initial"], 3.0)

    def test_grown_window_sizes(self):
        metrics = collect.metrics_of("fileset-seqread",
                                     "{}\nra_grown 4 1024 4096\n")
        self.assertEqual(metrics["readahead_grown_median_kib"], 1024.0)
        self.assertEqual(metrics["readahead_grown_max_kib"], 4096.0)
        self.assertEqual(report.metric_unit("readahead_grown_max_kib"),
                         "KiB")
        self.assertNotIn("readahead_grown_max_kib", collect.metrics_of(
            "fileset-seqread", "{}\nra_windows 0 0\n"))

    def test_no_trace_unless_asked(self):
        lines, enable = self.traced("quiet iosched.ratrace=0", [])
        self.assertEqual(lines, ["ran"])
        self.assertEqual(enable, "0")

    def test_mean_window_size(self):
        metrics = collect.metrics_of("fileset-seqread",
                                     "{}\nra_windows 2 320\n")
        self.assertEqual(metrics["readahead_window_kib"], 160.0)
        self.assertEqual(report.metric_unit("readahead_window_kib"), "KiB")
        self.assertNotIn("readahead_window_kib", collect.metrics_of(
            "fileset-seqread", "{}\nra_windows 0 0\n"))

    def test_mean_read_request_size(self):
        text = "{}\ndisk_reads 40 20480\n"
        metrics = collect.metrics_of("fileset-seqread", text)
        # 20480 sectors of 512 bytes in 40 requests: 256 KiB each.
        self.assertEqual(metrics["disk_read_req_kib"], 256.0)
        self.assertEqual(report.metric_unit("disk_read_req_kib"), "KiB")
        self.assertNotIn("disk_read_req_kib", collect.metrics_of(
            "fileset-cached", "{}\ndisk_reads 0 0\n"))

    def test_read_amplification(self):
        fio = {"jobs": [{"jobname": "reader", "read": {
            "io_bytes": 2 << 20, "bw": 100, "lat_ns": {}}}] * 2}
        # 8192 sectors (4 MiB) read by the disk for 2 x 2 MiB read by fio.
        text = json.dumps(fio) + "\ndisk_reads 64 8192\n"
        metrics = collect.metrics_of("mmap-randread", text)
        self.assertEqual(metrics["read_amplification"], 1.0)
        text = json.dumps(fio) + "\ndisk_reads 64 16384\n"
        metrics = collect.metrics_of("mmap-randread", text)
        self.assertEqual(metrics["read_amplification"], 2.0)
        self.assertTrue(report.is_lower_better("read_amplification"))
        self.assertNotIn("read_amplification", collect.metrics_of(
            "mmap-randread", json.dumps(fio)))

    def test_deltas_become_metrics(self):
        fio = {"jobs": [{"jobname": "reader", "read": {
            "io_bytes": 4096, "bw": 100, "iops": 25,
            "lat_ns": {"max": 2e6}}}]}
        text = json.dumps(fio) + "\nvmstat ra_thrash 12\nvmstat ra_window_shrink 30\n"
        metrics = collect.metrics_of("fileset-seqread", text)
        self.assertEqual(metrics["ra_thrash"], 12)
        self.assertEqual(metrics["ra_window_shrink"], 30)
        self.assertTrue(report.is_lower_better("ra_thrash"))
        self.assertTrue(report.is_lower_better("workingset_refault_file"))

    def test_readers_beside_writers_give_a_total(self):
        fio = {"jobs": [
            {"jobname": "reader", "read": {"io_bytes": 4096, "bw": 300,
                                           "lat_ns": {}}},
            {"jobname": "writer", "write": {"io_bytes": 4096, "bw": 700,
                                            "lat_ns": {}}}]}
        metrics = collect.metrics_of("dd-read-write", json.dumps(fio))
        self.assertEqual(metrics["total_kbps"], 1000)
        del fio["jobs"][1]
        self.assertNotIn("total_kbps", collect.metrics_of(
            "dd-read-write", json.dumps(fio)))

    def test_cached_rereads_give_system_cpu_per_gib(self):
        clone = {"jobname": "reader", "sys_cpu": 25.0, "job_runtime": 4000,
                 "read": {"io_bytes": 2**30, "bw": 100, "lat_ns": {}}}
        text = json.dumps({"jobs": [clone, clone]})
        metrics = collect.metrics_of("fileset-cached", text)
        # 2 x 1000 ms of system time over 2 GiB.
        self.assertEqual(metrics["reader_sys_per_gib_ms"], 1000.0)
        self.assertTrue(report.is_lower_better("reader_sys_per_gib_ms"))
        self.assertNotIn("reader_sys_per_gib_ms",
                         collect.metrics_of("fileset-seqread", text))


def decided(**counts):
    """with_ra_counters' "ra_decided" lines, in its (sorted) order: every
    decision of the tracepoint, @counts or 0."""
    return [f"ra_decided {d} {counts.get(d, 0)}" for d in sorted(
        "initial history random grow interleaved thrash deferred".split())]


class FioRun(unittest.TestCase):
    """bench/jobs/lib.sh's fio_run (the guest's shell): timed, or once
    through each job's size where the cell has no runtime."""

    def fio_arguments(self, secs):
        """The arguments fio_run gives fio, one per line, with SECS."""
        with tempfile.TemporaryDirectory() as tmp:
            fio = os.path.join(tmp, "fio")
            with open(fio, "w", encoding="utf-8") as f:
                f.write('#!/bin/sh\nprintf "%s\\n" "$@"\n')
            os.chmod(fio, 0o755)
            shell = shutil.which("busybox")  # the guest's sh
            done = subprocess.run(
                ([shell, "sh"] if shell else ["sh"]) +
                ["-c", f". {JOBS_LIB} && fio_run --name=reader --bs=16k"],
                env=dict(os.environ, SECS=secs,
                         PATH=tmp + os.pathsep + os.environ["PATH"]),
                capture_output=True, text=True, timeout=60, check=True)
        return done.stdout.splitlines()

    def test_timed(self):
        self.assertEqual(self.fio_arguments("15"),
                         ["--time_based", "--runtime=15",
                          "--output-format=json", "--group_reporting=0",
                          "--name=reader", "--bs=16k"])

    def test_once_through_without_a_runtime(self):
        self.assertEqual(self.fio_arguments("-"),
                         ["--output-format=json", "--group_reporting=0",
                          "--name=reader", "--bs=16k"])


class SeqreadJobs(unittest.TestCase):
    """bench/jobs/fileset-seqread.sh's readers: one file each when timed,
    the whole fileset shared out when read once."""

    def run_job(self, threads, secs):
        """The job's exit status, stderr and the arguments it gave fio."""
        with tempfile.TemporaryDirectory() as tmp:
            fio = os.path.join(tmp, "fio")
            with open(fio, "w", encoding="utf-8") as f:
                f.write('#!/bin/sh\nprintf "%s\\n" "$@"\n')
            os.chmod(fio, 0o755)
            none = os.path.join(tmp, "none")
            shell = shutil.which("busybox")  # the guest's sh
            done = subprocess.run(
                ([shell, "sh"] if shell else ["sh"]) +
                [os.path.join(BENCH, "jobs", "fileset-seqread.sh"), "run"],
                env=dict(os.environ, SECS=secs, THREADS=str(threads),
                         DIR="/fileset", BS="16k", VMSTAT=none,
                         DISKSTAT=none, CMDLINE=none,
                         PATH=tmp + os.pathsep + os.environ["PATH"]),
                capture_output=True, text=True, timeout=60, check=False)
        args = [a for a in done.stdout.splitlines() if a.startswith("--")]
        return done.returncode, done.stderr, args

    def test_timed_readers_read_a_file_each(self):
        status, _, args = self.run_job(16, "15")
        self.assertEqual(status, 0)
        self.assertEqual(args.count("--name=reader"), 1)
        self.assertIn("--numjobs=16", args)
        self.assertIn("--filename_format=f$jobnum", args)

    def test_once_readers_share_out_the_fileset(self):
        status, _, args = self.run_job(16, "-")
        self.assertEqual(status, 0)
        files = [a.split("=", 1)[1].split(":") for a in args
                 if a.startswith("--filename=")]
        self.assertEqual(args.count("--name=reader"), 16)
        self.assertEqual(files[0], ["f0", "f16", "f32", "f48"])
        self.assertEqual(files[15], ["f15", "f31", "f47", "f63"])
        self.assertEqual(sorted(f for fs in files for f in fs),
                         sorted(f"f{i}" for i in range(64)))
        self.assertEqual(args.count("--file_service_type=sequential"), 16)
        # Options before the first job are every job's.
        self.assertLess(args.index("--rw=read"), args.index("--name=reader"))

    def test_once_readers_one_file_each_at_64(self):
        _, _, args = self.run_job(64, "-")
        self.assertIn("--filename=f63", args)
        self.assertEqual(args.count("--name=reader"), 64)

    def test_uneven_share_refused(self):
        status, err, args = self.run_job(12, "-")
        self.assertNotEqual(status, 0)
        self.assertIn("12 readers cannot share 64 files evenly", err)
        self.assertEqual(args, [])


class CompletionGaps(unittest.TestCase):
    """bench/jobs/lib.sh's gaps (the guest's shell) and their collection."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def gaps(self, logs, secs=5):
        for name, times in logs.items():
            with open(os.path.join(self.tmp.name, name), "w",
                      encoding="utf-8") as log:
                log.write(fio_log(times))
        shell = shutil.which("busybox")  # the guest's sh and awk
        done = subprocess.run(
            ([shell, "sh"] if shell else ["sh"]) +
            ["-c", f". {JOBS_LIB} && completion_gaps"],
            env=dict(os.environ, COMPLETIONS=self.tmp.name, SECS=str(secs)),
            capture_output=True, text=True, timeout=60, check=True)
        return sorted(done.stdout.splitlines())

    def test_longest_gap_per_process(self):
        self.assertEqual(self.gaps({
            "writer_clat.1.log": [5, 20, 720, 730],    # 700 between two
            "writer_clat.2.log": [300, 350],           # 300 before the first
            "reader_clat.3.log": [1200, 1300, 1350]}),
            ["gap reader 1200", "gap writer 300", "gap writer 700"])

    def test_no_completion_is_a_gap_of_the_whole_run(self):
        self.assertEqual(self.gaps({"reader_clat.2.log": []}, secs=7),
                         ["gap reader 7000"])

    def test_worst_per_role_and_over_all(self):
        fio = {"jobs": [{"jobname": "writer", "write": {
            "io_bytes": 4096, "bw": 100, "iops": 25,
            "lat_ns": {"max": 2e6}}}]}
        text = (json.dumps(fio) + "\ngap writer 300\ngap writer 700\n"
                "gap reader 650\n")
        metrics = collect.metrics_of("writers-reader", text)
        self.assertEqual(metrics["writer_kbps"], 100)
        self.assertEqual(metrics["writer_gap_max_ms"], 700)
        self.assertEqual(metrics["reader_gap_max_ms"], 650)
        self.assertEqual(metrics["gap_max_ms"], 700)

    def test_jobs_without_logs_have_no_gaps(self):
        self.assertEqual(collect.completion_gaps('{"jobs": []}'), {})


class TunableLabels(unittest.TestCase):
    """collect.py: the tunables of a label's @NAME=VALUE suffix, as the
    guest read them back, go into its record; other records carry none."""

    FIO = json.dumps({"jobs": [{"jobname": "reader", "read": {
        "io_bytes": 4096, "bw": 100, "lat_ns": {"max": 1e6}}}]})

    def collect(self, label, guest_lines):
        out = "\n".join([f"BENCH-BEGIN c mmap-randread 4 64k 5 {label} 1",
                         *guest_lines, self.FIO, "BENCH-END status=0", ""])
        path = os.path.join(tempfile.mkdtemp(), "bench.tap")
        self.addCleanup(shutil.rmtree, os.path.dirname(path))
        with open(path, "w") as f:
            f.write(out)
        done = subprocess.run(
            [sys.executable, os.path.join(BENCH, "collect.py"), path,
             "--meta", "{}", "--seeds", "{}"],
            capture_output=True, text=True, check=True)
        return json.loads(done.stdout)

    def test_variant_records_what_the_guest_read_back(self):
        label = "bfq@low_latency=0@slice_idle=0"
        record = self.collect(label, ["tunable low_latency 0",
                                      "tunable slice_idle 0"])
        self.assertEqual(record["scheduler"], label)
        self.assertEqual(record["tunables"],
                         {"low_latency": "0", "slice_idle": "0"})

    def test_plain_label_records_no_tunables(self):
        self.assertNotIn("tunables", self.collect("bfq", []))

    def test_scheduler_slices_are_recorded(self):
        record = self.collect("mq-cfq", [
            "sched slices sync slice slices 12 used_ms 1180 dispatched 40",
            "sched slices async overdue slices 0 used_ms 0 dispatched 0"])
        self.assertEqual(record["sched_slices"], {
            "sync slice": {"slices": 12, "used_ms": 1180, "dispatched": 40},
            "async overdue": {"slices": 0, "used_ms": 0, "dispatched": 0}})
        self.assertNotIn("sched_slices", self.collect("bfq", []))

    def test_fixed_window_records_the_queues_read_ahead_kb(self):
        label = "mq-deadline-rastock@read_ahead_kb=512"
        record = self.collect(label, ["tunable read_ahead_kb 512",
                                      "read_ahead_kb 512"])
        self.assertEqual(record["tunables"], {"read_ahead_kb": "512"})
        self.assertEqual(record["read_ahead_kb"], 512)


class SchedSlices(unittest.TestCase):
    """bench/sched-slices.py: each kernel's mean of every counter per kind
    of slice end; a kind one measurement lacks counts as zero there."""

    def test_means_per_kernel_and_kind(self):
        module = load_script("sched-slices")

        def record(side, slices):
            return {"cell": "c", "scheduler": "mq-cfq", "ab": side,
                    "sched_slices": slices}
        sync = {"slices": 10, "used_ms": 100, "dispatched": 30}
        table = module.means([
            record("A", {"sync slice": sync}),
            record("A", {"sync slice": dict(sync, slices=20),
                         "async sync": sync}),
            record("B", {"sync slice": sync}),
            {"cell": "c", "scheduler": "bfq", "ab": "A"}])
        self.assertEqual(list(table), [("c", "mq-cfq")])
        self.assertEqual(table[("c", "mq-cfq")]["A"],
                         {"async sync": [5, 50, 15],
                          "sync slice": [15, 100, 30]})
        self.assertEqual(table[("c", "mq-cfq")]["B"],
                         {"sync slice": [10, 100, 30]})


class LabelRatios(unittest.TestCase):
    """bench/label-ratios.py: each label's mean over the baseline's in one
    run, with report.py's interval; failed measurements are left out."""

    def test_ratio_and_interval_against_the_baseline(self):
        module = load_script("label-ratios")

        def record(label, value, **extra):
            return dict({"cell": "c", "profile": "hdd", "threads": 4,
                         "scheduler": label,
                         "metrics": {"reader_kbps": value}}, **extra)
        records = ([record("base", v) for v in (100, 110, 90)] +
                   [record("new", v) for v in (200, 220, 180)] +
                   [record("new", 1, failed="why")])
        (line,) = module.lines(records, "base", ["new", "gone"],
                               ["reader_kbps"])
        base = {"mean": 100.0, "cv_pct": 10.0, "n": 3}
        low, high = report.interval(2.0, base, base)
        self.assertEqual(line, "c hdd threads=4 reader_kbps: base 100.0; "
                         f"new 2.00x ({low:.2f}-{high:.2f})")

    def test_a_single_repetition_has_no_interval(self):
        module = load_script("label-ratios")
        records = [{"cell": "c", "profile": "p", "threads": 1,
                    "scheduler": label, "metrics": {"m": value}}
                   for label, value in (("a", 2.0), ("b", 3.0))]
        self.assertEqual(list(module.lines(records, "a", ["b"], ["m"])),
                         ["c p threads=1 m: a 2.0; b 1.50x"])


    def test_one_side_of_an_ab_run(self):
        module = load_script("label-ratios")
        records = [{"ab": side, "scheduler": "x"} for side in "ABA"]
        self.assertEqual(module.of_side(records, "A"),
                         [records[0], records[2]])
        with self.assertRaises(SystemExit):
            module.of_side(records, None)
        plain = [{"scheduler": "x"}]
        self.assertEqual(module.of_side(plain, None), plain)
        with self.assertRaises(SystemExit):
            module.of_side(plain, "B")


class CollectGuards(unittest.TestCase):
    """collect.py: one bad measurement is recorded as failed, with its
    reason, and the measurements after it are still collected."""

    GOOD = TunableLabels.FIO

    def collect(self, measurements):
        lines = []
        for begin, body, end in measurements:
            lines += [f"BENCH-BEGIN {begin}", *body, f"BENCH-END {end}"]
        path = os.path.join(tempfile.mkdtemp(), "bench.tap")
        self.addCleanup(shutil.rmtree, os.path.dirname(path))
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        done = subprocess.run(
            [sys.executable, os.path.join(BENCH, "collect.py"), path,
             "--meta", '{"run": "r"}', "--seeds", "{}"],
            capture_output=True, text=True, check=False)
        return done, [json.loads(line) for line in done.stdout.splitlines()]

    def test_bad_measurements_do_not_end_the_group(self):
        nameless = json.dumps({"jobs": [{"read": {"io_bytes": 1}}]})
        standstill = ("loadfile 100 lines\n"
                      "   4      10     1.00 MB/sec  execute   1 sec\n"
                      "   4      20     1.00 MB/sec  execute   1 sec\n"
                      "Throughput 1.0 MB/sec 4 clients 4 procs "
                      "max_latency=5.0 ms")
        done, records = self.collect([
            ("c mmap-randread 4 64k 5 bfq 1", [self.GOOD], "status=0"),
            ("c mmap-randread 4 64k 5 bfq 2", [nameless], "status=0"),
            ("c mmap-randread 4 64k 5 bfq 3", [self.GOOD], "status=zero"),
            ("c mmap-randread 4 64k", [self.GOOD], "status=0"),
            ("d dbench 4 - 5 bfq 1", [standstill], "status=0"),
            ("c mmap-randread 4 64k 5 bfq 4", [self.GOOD], "status=0")])
        self.assertEqual(done.returncode, 1)
        self.assertEqual([r.get("failed") is None for r in records],
                         [True, False, False, False, True, True])
        self.assertEqual([r["rep"] for r in records if "rep" in r],
                         [1, 2, 3, 1, 4])
        self.assertNotIn("seconds_per_loadfile", records[4]["metrics"])
        for record in records[1:4]:
            self.assertEqual(record["run"], "r")
            self.assertTrue(record["failed"])
            self.assertNotIn("metrics", record)

    def test_the_guests_rotational_flag_is_recorded(self):
        _, records = self.collect([
            ("c mmap-randread 4 64k 5 bfq 1", ["rotational 0", self.GOOD],
             "status=0")])
        self.assertEqual(records[0]["rotational"], 0)
        self.assertEqual(report.profile_rotational(
            [dict(records[0], profile="ssd")]), {"ssd": [0]})

    def test_late_model_replies_flag_their_group(self):
        def record(profile, late):
            return {"profile": profile, "disk": "sata", "mem_mib": 1024,
                    "model_replies": {"replies": 1000, "late": late,
                                      "mean_late_us": 20,
                                      "worst_late_us": 900}}
        timing = report.model_timing([record("hdd", 10), record("ssd", 11)])
        self.assertFalse(timing["hdd on sata, 1024 MiB"]["flagged"])
        self.assertTrue(timing["ssd on sata, 1024 MiB"]["flagged"])
        lines = report.timing_lines(timing)
        self.assertNotIn("with care", lines[0])
        self.assertIn("ssd on sata, 1024 MiB: 1.1% of 1000 replies late",
                      lines[1])
        self.assertIn("with care", lines[1])

    def test_the_guest_says_why(self):
        done, records = self.collect([
            ("c mmap-randread 4 64k 5 bfq 1",
             ["failed: preparing c failed"], "status=1")])
        self.assertEqual(records[0]["failed"], "preparing c failed")
        self.assertIn("preparing c failed", done.stderr)


class QueueGain(unittest.TestCase):
    """The physics line of a device-read cell: IOPS at each queue depth
    against the shallowest."""

    def records(self, iops):
        return [{"cell": "physics-ncq", "scheduler": "none", "rep": 1,
                 "profile": "hdd-ncq", "disk": "sata", "threads": qd,
                 "title": "device-read 4k",
                 "metrics": {"device_iops": value}}
                for qd, value in iops.items()]

    def test_gain_at_each_depth(self):
        cell, = report.aggregate(self.records({1: 80, 16: 132, 32: 130}),
                                 "none")
        self.assertEqual(report.queue_gain_line(cell),
                         "Queue gain against QD1: none QD16 1.65x, "
                         "QD32 1.62x")

    def test_no_line_for_one_depth(self):
        cell, = report.aggregate(self.records({4: 80}), "none")
        self.assertEqual(report.queue_gain_line(cell), "")


class ABReport(unittest.TestCase):
    """bench/ab-report.py: each figure of B against the same of A."""

    @classmethod
    def setUpClass(cls):
        cls.ab = load_script("ab-report")

    def run_dir(self, figures):
        """results.jsonl with one record per (side, value) of @figures."""
        run = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, run)
        with open(os.path.join(run, "results.jsonl"), "w") as out:
            for side, metric, value in figures:
                out.write(json.dumps({
                    "ab": side, "cell": "c", "profile": "hdd",
                    "disk": "sata", "threads": 4, "scheduler": "mq-cfq",
                    "metrics": {metric: value}}) + "\n")
        return run

    def rows(self, figures):
        run = self.run_dir(figures)
        return self.ab.ratios(self.ab.load(os.path.join(run,
                                                        "results.jsonl")))

    def test_ratio_and_interval(self):
        row, = self.rows([("A", "reader_kbps", v) for v in (90, 100, 110)] +
                         [("B", "reader_kbps", v) for v in (180, 200, 220)])
        self.assertAlmostEqual(row["ratio"], 2.0)
        low, high = row["interval"]
        self.assertLess(low, 2.0)
        self.assertGreater(high, 2.0)
        self.assertEqual(self.ab.verdict(row), "B better")

    def test_lower_is_better_and_noise(self):
        row, = self.rows([("A", "reader_lat_max_ms", v) for v in (50, 100)] +
                         [("B", "reader_lat_max_ms", v) for v in (60, 90)])
        self.assertEqual(self.ab.verdict(row), "same")
        row, = self.rows([("A", "reader_lat_max_ms", v) for v in (99, 101)] +
                         [("B", "reader_lat_max_ms", v) for v in (49, 51)])
        self.assertEqual(self.ab.verdict(row), "B better")

    def test_figure_on_one_side_only_is_left_out(self):
        self.assertEqual(self.rows([("A", "reader_kbps", 1),
                                    ("B", "writer_kbps", 1)]), [])

    def test_command_line(self):
        run = self.run_dir([("A", "reader_kbps", 100), ("B", "reader_kbps",
                                                        120)])
        done = subprocess.run([sys.executable,
                               os.path.join(BENCH, "ab-report.py"), run],
                              capture_output=True, text=True, check=False,
                              env=dict(os.environ, PATH=""))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("c [hdd/sata] at 4 mq-cfq reader_kbps: A 100, B 120, "
                      "B/A 1.20x (one run each: no interval): untold",
                      done.stdout)
        self.assertTrue(os.path.isfile(os.path.join(run, "ab-report.md")))
        done = subprocess.run([sys.executable,
                               os.path.join(BENCH, "ab-report.py"), "/nope"],
                              capture_output=True, text=True, check=False)
        self.assertEqual(done.returncode, 2)


class Helpers(unittest.TestCase):
    def test_direction_from_name(self):
        self.assertTrue(report.is_lower_better("writer_lat_max_ms"))
        self.assertTrue(report.is_lower_better("seconds_per_loadfile"))
        self.assertFalse(report.is_lower_better("iops"))
        self.assertFalse(report.is_lower_better("writers_kbps"))

    def test_units(self):
        self.assertEqual(report.metric_unit("reader_kbps"), "KB/s")
        self.assertEqual(report.metric_unit("read_lat_max_ms"), "ms")
        self.assertEqual(report.metric_unit("iops"), "IOPS")

    def test_value_format(self):
        self.assertEqual(report.format_value(1797.04), "1797")
        self.assertEqual(report.format_value(85.23), "85.2")
        self.assertEqual(report.format_value(0.04213), "0.0421")
        self.assertEqual(report.format_diff(-0.2), "+0%")
        self.assertEqual(report.format_diff(27.4), "+27%")



class FixedWindowBoots(unittest.TestCase):
    """check-results.py: a label that writes read_ahead_kb must not share
    a boot with labels that read with the kernel's value, which must all
    have seen the same one."""

    FIXED = "mq-deadline-rastock@read_ahead_kb=512"

    @classmethod
    def setUpClass(cls):
        cls.checker = load_script("check-results")

    def failures(self, records):
        tap = self.checker.Tap()
        with contextlib.redirect_stdout(io.StringIO()):
            self.checker.check_windows_boot_apart(tap, records)
        return tap.failed

    @staticmethod
    def record(boot, label, window):
        return {"boot": boot, "scheduler": label, "read_ahead_kb": window}

    def test_separate_boots_pass(self):
        self.assertEqual(self.failures([
            self.record("a_default", "mq-deadline", 128),
            self.record("a_default", "mq-deadline-rastock", 128),
            self.record("a_written", self.FIXED, 512)]), 0)

    def test_a_written_window_beside_the_default_fails(self):
        self.assertEqual(self.failures([
            self.record("a", "mq-deadline", 128),
            self.record("a", self.FIXED, 512)]), 1)

    def test_a_window_left_behind_fails(self):
        self.assertEqual(self.failures([
            self.record("a_default", "mq-deadline", 128),
            self.record("a_default", "mq-deadline-rastock", 512)]), 1)

    def test_a_fixed_window_not_read_with_fails(self):
        self.assertEqual(self.failures([
            self.record("a_written", self.FIXED, 128)]), 1)

    def test_failed_measurements_are_left_out(self):
        self.assertEqual(self.failures([
            self.record("a_default", "mq-deadline", 128),
            {"boot": "a_default", "scheduler": "bfq", "failed": "why"}]), 0)


if __name__ == "__main__":
    unittest.main()
