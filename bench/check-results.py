#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that a benchmark run produced well-formed results (TAP output).

Used by "make test" on its short benchmark smoke: every planned
measurement has a record with the run's metadata and positive figures,
and the report (and plots, where a cell has several thread counts) exist.
It never judges how fast anything was."""
import json
import os
import sys

REQUIRED = ("run", "kernel", "series", "boot", "profile", "disk", "mem_mib",
            "cell", "seed", "threads", "bs", "scheduler", "rep", "metrics",
            "read_ahead_kb", "complete")


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, ok, what):
        self.n += 1
        self.failed += not ok
        print(f"{'ok' if ok else 'not ok'} {self.n} {what}")


def planned(run):
    plan_dir = os.path.join(run, "plan")
    lines = []
    for name in sorted(os.listdir(plan_dir)):
        with open(os.path.join(plan_dir, name)) as f:
            lines += [line.split() for line in f if line.strip()]
    return lines


def label_tunables(label):
    """NAME -> VALUE of a label's @NAME=VALUE suffix."""
    return dict(s.split("=", 1) for s in label.split("@")[1:])


def check_windows_boot_apart(tap, records):
    """Labels that write read_ahead_kb share no boot with those that do
    not (the kernel keeps a written value); each of them read with the
    window it wrote, and the others of a boot all read with the one the
    kernel chose. Failed measurements, which read nothing, are left out."""
    boots = {}
    for r in records:
        if "read_ahead_kb" in r:
            boots.setdefault(r.get("boot"), []).append(r)
    for boot, members in sorted(boots.items(), key=lambda b: str(b[0])):
        written = {r["scheduler"]: label_tunables(r["scheduler"]).get(
            "read_ahead_kb") for r in members}
        kinds = {value is not None for value in written.values()}
        tap.check(len(kinds) == 1,
                  f"boot {boot}: labels that write read_ahead_kb boot "
                  "apart from the others")
        if kinds == {True}:
            wrong = sorted({r["scheduler"] for r in members
                            if str(r["read_ahead_kb"]) != written[r["scheduler"]]})
            tap.check(not wrong, f"boot {boot}: every label read with the "
                      "read_ahead_kb it wrote" +
                      (f" (not: {', '.join(wrong)})" if wrong else ""))
        elif kinds == {False}:
            seen = {r["read_ahead_kb"] for r in members}
            tap.check(len(seen) == 1,
                      f"boot {boot}: every label read with the kernel's "
                      f"read_ahead_kb (saw {sorted(seen)})")


def main(run):
    tap = Tap()
    print("TAP version 13")
    records = []
    with open(os.path.join(run, "results.jsonl")) as f:
        for line in f:
            records.append(json.loads(line))
    plan = planned(run)
    tap.check(len(records) == len(plan),
              f"{len(records)} records for {len(plan)} planned measurements")
    for r in records:
        name = f"{r.get('cell')} {r.get('scheduler')} rep {r.get('rep')}"
        tap.check("failed" not in r, f"{name}: measured" +
                  (f" (failed: {r['failed']})" if "failed" in r else ""))
        tap.check(all(k in r for k in REQUIRED), f"{name}: all fields")
        figures = r.get("metrics", {})
        tap.check(bool(figures) and all(
            isinstance(v, (int, float)) and v > 0
            for k, v in figures.items() if k.endswith("_kbps")),
            f"{name}: positive throughput figures")
        tap.check(r.get("complete") is True, f"{name}: complete")
        asked = label_tunables(r.get("scheduler", ""))
        if asked:
            tap.check(r.get("tunables") == asked,
                      f"{name}: tunables read back as asked")
    check_windows_boot_apart(tap, records)
    tap.check(os.path.isfile(os.path.join(run, "report.md")), "report.md")
    threads = {(r["cell"], r["threads"]) for r in records}
    if len({t for _, t in threads}) > 1:
        plots = [f for f in os.listdir(run) if f.endswith(".png")]
        tap.check(bool(plots), f"{len(plots)} plots")
    tap.check(not os.path.exists(os.path.join(run, "INCOMPLETE")),
              "run not marked incomplete")
    print(f"1..{tap.n}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: check-results.py build/bench/<run>")
    sys.exit(main(sys.argv[1]))
