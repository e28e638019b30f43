# SPDX-License-Identifier: GPL-2.0
"""make test STAGES=... and SHARD=i/n, and scripts/merge-results.sh."""

import os
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Stages(unittest.TestCase):
    def run_test_sh(self, **env):
        # Not the knobs of the make test that runs these tests.
        knobs = ('STAGES', 'SHARD', 'DISKS', 'DEBUG', 'DEBUG_DISKS', 'BUNDLE')
        clean = {k: v for k, v in os.environ.items() if k not in knobs}
        with tempfile.TemporaryDirectory() as build:
            run = subprocess.run([os.path.join(TOP, 'scripts/test.sh')],
                                 env=dict(clean, BUILD=build, **env),
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

    def test_shard_out_of_range(self):
        for shard in ('3/2', '0/2', '1/0', '1', 'a/b'):
            run, left = self.run_test_sh(SHARD=shard)
            self.assertEqual(run.returncode, 1, shard)
            self.assertEqual(run.stderr.splitlines()[-1],
                             f'error: SHARD={shard}: want i/n with 1 <= i <= n')
            self.assertEqual(sorted(left), ['build.holder', 'build.lock'])


ALL = ('checks unit kunit ide sata scsi hba nvme virtio-mq virtio machine '
       'bench-smoke debug').split()


def shard(part, parts, stages=ALL, debug_kinds='scsi'):
    script = ('. scripts/lib.sh; . scripts/qemu-lib.sh; . scripts/test-lib.sh; '
              f'debug_kinds=({debug_kinds}); shard_stages "$@"')
    run = subprocess.run(['bash', '-c', script, 'bash', str(part), str(parts), *stages],
                         cwd=TOP, capture_output=True, text=True, check=True)
    return run.stdout.split()


class Shards(unittest.TestCase):
    def test_the_parts_are_the_run(self):
        for parts in range(1, 6):
            got = [shard(part, parts) for part in range(1, parts + 1)]
            every = [stage for part in got for stage in part]
            self.assertEqual(sorted(every), sorted(ALL), parts)
            for part in got:
                self.assertEqual(part, [s for s in ALL if s in part], 'order kept')

    def test_two_parts_are_balanced_by_ci_time(self):
        # checks 1500 + kunit 60 + two kinds 360 + bench-smoke 100 = 2020 s
        # against unit 60 + five kinds 900 + machine 300 + debug 700 = 1960 s
        self.assertEqual(shard(1, 2), ['checks', 'kunit', 'hba', 'virtio-mq',
                                       'bench-smoke'])
        self.assertEqual(shard(2, 2), ['unit', 'ide', 'sata', 'scsi', 'nvme',
                                       'virtio', 'machine', 'debug'])

    def test_more_parts_than_stages(self):
        self.assertEqual([shard(p, 3, ['kunit', 'nvme']) for p in (1, 2, 3)],
                         [['nvme'], ['kunit'], []])


class MergeResults(unittest.TestCase):
    def merge(self, *contents):
        with tempfile.TemporaryDirectory() as d:
            files = []
            for i, text in enumerate(contents):
                files.append(os.path.join(d, f'results{i}'))
                with open(files[-1], 'w') as f:
                    f.write(text)
            run = subprocess.run([os.path.join(TOP, 'scripts/merge-results.sh'), *files],
                                 capture_output=True, text=True)
        return run.returncode, run.stdout, run.stderr.replace(d + '/', '')

    def test_sums_the_shards(self):
        self.assertEqual(self.merge('10 0 0 checks unit\n', '5 0 2 kunit nvme\n'),
                         (0, '15 passed, 0 failed, 2 skipped\n', '4 stages from 2 runs\n'))

    def test_a_failure_fails(self):
        code, out, _ = self.merge('10 0 0 checks\n', '5 1 0 kunit\n')
        self.assertEqual((code, out), (1, '15 passed, 1 failed\n'))

    def test_a_stage_in_two_runs(self):
        code, out, err = self.merge('10 0 0 checks unit\n', '3 0 0 unit\n')
        self.assertEqual((code, out), (1, ''))
        self.assertEqual(err, 'error: stages ran twice: unit (results0, results1)\n')

    def test_not_a_results_file(self):
        code, _, err = self.merge('10 0 0 checks\n', '15 passed, 0 failed\n')
        self.assertEqual((code, err), (1, 'error: results1: not a results file of make test\n'))

    def test_a_run_with_no_stage(self):
        self.assertEqual(self.merge('0 0 0\n', '3 0 0 unit\n')[:2], (0, '3 passed, 0 failed\n'))


if __name__ == '__main__':
    unittest.main()
