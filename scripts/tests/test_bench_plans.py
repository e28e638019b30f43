# SPDX-License-Identifier: GPL-2.0
"""write_plans (scripts/bench.sh): labels that write read_ahead_kb go to a
boot of their own, since the kernel keeps a written value; the order of
the labels rotates within each boot, so none always goes first there; a
boot with no label gets no plan file; bad knobs fail with one line."""
import os
import subprocess
import tempfile
import unittest

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                     'bench.sh')
FIXED = ['mq-deadline-rastock@read_ahead_kb=512',
         'mq-deadline-rastock@read_ahead_kb=1024',
         'mq-deadline-rastock@read_ahead_kb=2048']


def bench(function, **knobs):
    """Run @function of bench.sh, sourced, with the kernel's schedulers
    stubbed; returns the completed process."""
    env = dict(os.environ, **knobs)
    return subprocess.run(
        ['bash', '-c', f'. "{BENCH}"; built_schedulers() '
         '{ echo "none mq-deadline kyber bfq mq-cfq"; }; ' + function],
        env=env, capture_output=True, text=True, check=False)


class Plans(unittest.TestCase):
    def plans(self, schedulers, **knobs):
        run = tempfile.mkdtemp()
        self.addCleanup(subprocess.run, ['rm', '-rf', run])
        knobs = dict(dict(CELLS='seed002-seq16k', PROFILE='hdd'), **knobs)
        done = bench('write_plans', RUN=run, REPS='3', THREADS='1',
                     SCHEDULERS=' '.join(schedulers), **knobs)
        self.assertEqual(done.returncode, 0, done.stderr)
        plans = {}
        for name in os.listdir(os.path.join(run, 'plan')):
            with open(os.path.join(run, 'plan', name)) as f:
                plans[name] = [line.split() for line in f]
        return plans

    def test_written_windows_boot_apart_and_rotate_there(self):
        plans = self.plans(['mq-deadline', 'mq-deadline-rastock'] + FIXED)
        self.assertEqual(sorted(plans), ['hdd_sata_256_ext4_default',
                                         'hdd_sata_256_ext4_written'])
        written = plans['hdd_sata_256_ext4_written']
        self.assertEqual({line[5] for line in written}, set(FIXED))
        self.assertFalse({line[5] for line in
                          plans['hdd_sata_256_ext4_default']} & set(FIXED))
        for boot in plans.values():
            firsts = [next(line[5] for line in boot if line[6] == rep)
                      for rep in ('1', '2', '3')]
            self.assertEqual(len(set(firsts)), len(firsts) if
                             boot is written else 2, firsts)

    def test_a_named_cell_runs_on_a_profile_it_does_not_list(self):
        plans = self.plans(['mq-deadline'], CELLS='seed002-rand16k',
                           PROFILE='raid4,raw')
        self.assertEqual(sorted(plans), ['raid4_sata_256_ext4_default',
                                         'raw_sata_256_ext4_default'])

    def test_a_profile_named_twice_plans_once(self):
        once = self.plans(['mq-deadline'], PROFILE='hdd')
        twice = self.plans(['mq-deadline'], PROFILE='hdd,hdd')
        self.assertEqual(once, twice)

    def test_null_blk_takes_only_the_raw_profile(self):
        run = tempfile.mkdtemp()
        self.addCleanup(subprocess.run, ['rm', '-rf', run])
        done = bench('write_plans; check_plan_disks', RUN=run,
                     CELLS='nullblk-iops', PROFILE='hdd',
                     SCHEDULERS='mq-deadline')
        self.assertNotEqual(done.returncode, 0)
        self.assertIn('null_blk has no disk model', done.stderr)

    def test_profile_alone_filters_what_cells_list(self):
        plans = self.plans(['mq-deadline'], CELLS='', PROFILE='raid4')
        self.assertNotIn('seed002-rand16k',
                         {line[0] for boot in plans.values()
                          for line in boot})

    def test_no_plan_file_for_an_empty_boot(self):
        self.assertEqual(sorted(self.plans(['mq-deadline'])),
                         ['hdd_sata_256_ext4_default'])


class Knobs(unittest.TestCase):
    def test_bad_numbers_fail_with_one_line(self):
        for knobs in ({'GUEST_MIB': '256 1024'}, {'GUEST_MIB': '0256'},
                      {'REPS': 'x'}, {'SECS': '0'}, {'RA_TRACE': 'yes'},
                      {'RA_TRACE': '2'}):
            done = bench('validate_numbers', **knobs)
            self.assertNotEqual(done.returncode, 0, knobs)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1,
                             done.stderr)

    def test_tracing_is_asked_with_1(self):
        for value in ('0', '1'):
            done = bench('validate_numbers', RA_TRACE=value)
            self.assertEqual(done.returncode, 0, done.stderr)

    def test_good_labels_pass(self):
        done = bench('check_tunable_settings "bfq@low_latency=0 '
                     'mq-deadline-rastock@read_ahead_kb=512"')
        self.assertEqual(done.returncode, 0, done.stderr)

    def test_a_window_must_be_a_number(self):
        done = bench('check_tunable_settings '
                     '"mq-deadline-rastock@read_ahead_kb=1M"')
        self.assertNotEqual(done.returncode, 0)
        self.assertIn('whole number', done.stderr)


if __name__ == '__main__':
    unittest.main()
