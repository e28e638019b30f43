# SPDX-License-Identifier: GPL-2.0
"""make test STAGES=...: names it does not know fail before anything runs."""

import os
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Stages(unittest.TestCase):
    def run_test_sh(self, **env):
        with tempfile.TemporaryDirectory() as build:
            run = subprocess.run([os.path.join(TOP, 'scripts/test.sh')],
                                 env=dict(os.environ, BUILD=build, **env),
                                 capture_output=True, text=True, timeout=60)
            left = os.listdir(build)
        return run, left

    def test_unknown_stage(self):
        run, left = self.run_test_sh(STAGES='kunit kunits')
        self.assertEqual(run.returncode, 1)
        self.assertEqual(run.stderr.splitlines()[-1],
                         "error: STAGES: unknown stage 'kunits' (stages: checks unit "
                         'kunit ide sata scsi hba nvme virtio-mq virtio machine '
                         'bench-smoke debug)')
        self.assertEqual(sorted(left), ['build.holder', 'build.lock'])

    def test_disk_kind_that_disks_leaves_out(self):
        run, _ = self.run_test_sh(STAGES='unit sata', DISKS='nvme scsi')
        self.assertEqual(run.returncode, 1)
        self.assertEqual(run.stderr.splitlines()[-1],
                         'error: STAGES names disk kind sata, which DISKS '
                         '(nvme scsi) leaves out')


if __name__ == '__main__':
    unittest.main()
