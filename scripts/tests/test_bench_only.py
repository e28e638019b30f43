# SPDX-License-Identifier: GPL-2.0
"""lib.sh's bench_only: bench.sh with the caller's knobs only."""

import os
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KNOBS = ('CELLS', 'SCHEDULERS', 'PROFILE', 'REPS', 'THREADS', 'SECS', 'QUICK',
         'GUEST_MIB', 'REP_FROM', 'KERNEL_IMAGE', 'GUEST_CPUS')


class BenchOnly(unittest.TestCase):
    def test_only_the_knobs_given_reach_bench_sh(self):
        with tempfile.TemporaryDirectory() as top:
            os.makedirs(os.path.join(top, 'scripts'))
            bench = os.path.join(top, 'scripts', 'bench.sh')
            with open(bench, 'w') as f:
                f.write('#!/bin/sh\nenv\n')
            os.chmod(bench, 0o755)
            env = dict(os.environ, **{k: 'from-the-caller' for k in KNOBS})
            run = subprocess.run(
                ['bash', '-c', f'. "{TOP}/scripts/lib.sh"; TOP="$1"; '
                 'bench_only CELLS=seed001-heavy SECS=10', 'bash', top],
                env=env, capture_output=True, text=True, check=True)
        seen = dict(line.split('=', 1) for line in run.stdout.splitlines() if '=' in line)
        self.assertEqual({k: seen[k] for k in KNOBS if k in seen},
                         {'CELLS': 'seed001-heavy', 'SECS': '10'})


if __name__ == '__main__':
    unittest.main()
