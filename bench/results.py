# SPDX-License-Identifier: GPL-2.0
"""Reading a bench run's records, for the scripts of bench/ that
summarize one (sched-slices.py, label-ratios.py)."""
import json
import os
import sys


def read_run(run, prog):
    """The records of @run's results.jsonl; exits with one line naming
    @prog and the reason where the file cannot be read."""
    path = os.path.join(run, "results.jsonl")
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as err:
        sys.exit(f"{prog}: cannot read {path}: {err}")
