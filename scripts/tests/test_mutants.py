# SPDX-License-Identifier: GPL-2.0
"""scripts/mutants.sh: every mutant under mutants/ still applies to the
code and names what it undoes and a test that can be run; a test's result
is read from KUnit's console and from a kselftest's TAP as what it is
(failed, passed, or not reported at all); and bad input fails with one
line before anything is built."""
import glob
import os
import subprocess
import tempfile
import unittest

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
SCRIPT = os.path.join(TOP, 'scripts', 'mutants.sh')

# As the serial console logs it: printk times, and lines that end in CR LF.
KUNIT_CONSOLE = """\
[    5.963950]     ok 1 cfq_test_idle_ends_before_it_started
[    5.983775]     # cfq_test_latency_slice_extremes: EXPECTATION FAILED at block/mq-cfq-iosched_kunit.c:139
[    5.983775]     Expected cfq_latency_slice_ns(cfqd, cfqq) == 5000 * IOQ_TEST_MS, but
[    5.983775]         cfq_latency_slice_ns(cfqd, cfqq) == 16000000 (0xf42400)
[    5.983775]         5000 * IOQ_TEST_MS == 5000000000 (0x12a05f200)
[    5.983776]     not ok 4 cfq_test_latency_slice_extremes
[    6.017345]     ok 5 cfq_test_charge_extremes
[    6.017345]     ok 6 cfq_test_charge_extremes_too
""".replace('\n', '\r\n')

SELFTEST_TAP = """\
# TAP version 13
# 1..2
# # an IDLE reader: at most 60 scheduler tags in use
# not ok 1 an IDLE reader holds at most 8 of 64 scheduler tags
# # buffered writeback: at most 40 scheduler tags in use
# ok 2 buffered writeback holds at most 48 of 64 scheduler tags
not ok 1 selftests: iosched: mq_cfq_depth.sh # exit=1
"""


def run(function, env=None):
    """Run @function of mutants.sh, sourced; the completed process."""
    return subprocess.run(['bash', '-c', f'. "{SCRIPT}"; ' + function],
                          env=dict(os.environ, **(env or {})),
                          capture_output=True, text=True, check=False)


class Mutants(unittest.TestCase):
    def test_every_mutant_applies_and_names_its_defect_and_test(self):
        mutants = sorted(glob.glob(os.path.join(TOP, 'mutants', '*.patch')))
        self.assertTrue(mutants)
        for mutant in mutants:
            with self.subTest(mutant=os.path.basename(mutant)):
                done = run(f'check_mutant "{mutant}"')
                self.assertEqual(done.returncode, 0, done.stderr)


class Results(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(subprocess.run, ['rm', '-rf', self.dir])

    def tap(self, text):
        path = os.path.join(self.dir, 'tap')
        with open(path, 'w') as f:
            f.write(text)
        return path

    def result(self, spec, text):
        done = run(f'test_result "{spec}" "{self.tap(text)}"')
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout.strip()

    def test_kunit_cases_by_their_whole_name(self):
        self.assertEqual(self.result('kunit cfq_test_latency_slice_extremes',
                                     KUNIT_CONSOLE), 'fail')
        self.assertEqual(self.result('kunit cfq_test_charge_extremes',
                                     KUNIT_CONSOLE), 'pass')
        self.assertEqual(self.result('kunit cfq_test_charge',
                                     KUNIT_CONSOLE), 'absent')

    def test_a_result_early_in_a_long_console(self):
        # A reader that stops at the match must not make the line absent
        # (under pipefail, the writer before it dies of SIGPIPE).
        console = KUNIT_CONSOLE + '[    7.000000] filler\r\n' * 50000
        self.assertEqual(self.result('kunit cfq_test_charge_extremes',
                                     console), 'pass')
        self.assertEqual(self.result('kunit cfq_test_latency_slice_extremes',
                                     console), 'fail')
        done = run('failure_lines "kunit cfq_test_latency_slice_extremes" '
                   f'"{self.tap(console)}"; echo "status $?"')
        self.assertEqual(done.stdout.splitlines()[-1], 'status 0',
                         done.stderr)

    def test_a_skipped_test_has_not_passed(self):
        tap = ('# ok 1 smp.every_reader_gets_its_share # SKIP 2 CPUs\n'
               'ok 1 selftests: iosched: mq_cfq_smp # SKIP\n')
        self.assertEqual(self.result('selftest scsi mq_cfq_smp '
                                     'every_reader_gets_its_share', tap),
                         'skipped')

    def test_the_regex_sees_only_the_description(self):
        # Anchored at the description; the result and number are not in it.
        spec = 'selftest scsi mq_cfq_depth.sh ^an IDLE reader holds'
        self.assertEqual(self.result(spec, SELFTEST_TAP), 'fail')
        spec = 'selftest scsi mq_cfq_depth.sh ^buffered writeback holds'
        self.assertEqual(self.result(spec, SELFTEST_TAP), 'pass')
        spec = 'selftest scsi mq_cfq_depth.sh ^not ok'
        self.assertEqual(self.result(spec, SELFTEST_TAP), 'absent')

    def test_a_kernel_that_did_not_boot_reports_nothing(self):
        self.assertEqual(self.result('kunit cfq_test_charge_extremes', ''),
                         'absent')
        done = run('test_result "kunit x" /nonexistent')
        self.assertEqual(done.stdout.strip(), 'absent')

    def test_bisect_results_by_regex(self):
        tap = ('TAP version 13\n'
               'ok 7 block/ mm/ build with 0004-block-add-blk-ioq.patch\n'
               '# not compiled at this patch (nothing in the config builds'
               ' it): block/blk-ioq.c\n'
               'not ok 8 W=1 adds no warnings in 0004-block-add-blk-ioq.patch\n'
               'ok 9 the paths 0004-block-add-blk-ioq.patch names exist\n')
        self.assertEqual(self.result('bisect 0004 ^W=1 adds no warnings in '
                                     '0004-', tap), 'fail')
        self.assertEqual(self.result('bisect 0004 ^the paths 0004-', tap),
                         'pass')
        done = run('failure_lines "bisect 0004 ^W=1" '
                   f'"{self.tap(tap)}"')
        self.assertIn('# not compiled at this patch (nothing in the config '
                      'builds it): block/blk-ioq.c', done.stdout.splitlines())

    def test_bench_results_by_regex(self):
        # bench/check-results.py's lines: a failed measurement's reason is
        # in its description.
        tap = ('TAP version 13\n'
               'ok 1 2 records for 2 planned measurements\n'
               'not ok 2 physics-rand4k mq-deadline rep 1: measured (failed:'
               ' /dev/sda reports rotational=1, but the disk model\'s '
               'profile is rotational=0)\n'
               'ok 3 report.md\n1..3\n')
        # The regex names the measurement, whose line passes on the code
        # as it is (the baseline) and carries the reason when it fails.
        spec = ('bench physics-rand4k ssd '
                '^physics-rand4k mq-deadline rep 1: measured')
        self.assertEqual(self.result(spec, tap), 'fail')
        passed = tap.replace(
            "not ok 2 physics-rand4k mq-deadline rep 1: measured (failed:"
            " /dev/sda reports rotational=1, but the disk model's "
            "profile is rotational=0)",
            'ok 2 physics-rand4k mq-deadline rep 1: measured')
        self.assertEqual(self.result(spec, passed), 'pass')
        self.assertEqual(self.result('bench physics-rand4k ssd ^report.md$',
                                     tap), 'pass')
        done = run(f'run_key "{spec}"')
        self.assertEqual(done.stdout.strip(), 'bench physics-rand4k ssd')

    def test_kselftest_subtests_by_regex(self):
        spec = 'selftest scsi mq_cfq_depth.sh an IDLE reader holds'
        self.assertEqual(self.result(spec, SELFTEST_TAP), 'fail')
        spec = 'selftest scsi mq_cfq_depth.sh buffered writeback holds'
        self.assertEqual(self.result(spec, SELFTEST_TAP), 'pass')

    def test_the_failure_is_quoted(self):
        done = run('failure_lines "kunit cfq_test_latency_slice_extremes" '
                   f'"{self.tap(KUNIT_CONSOLE)}"')
        lines = done.stdout.splitlines()
        self.assertEqual(lines[0], '# cfq_test_latency_slice_extremes: '
                         'EXPECTATION FAILED at '
                         'block/mq-cfq-iosched_kunit.c:139')
        self.assertIn('cfq_latency_slice_ns(cfqd, cfqq) == 16000000 '
                      '(0xf42400)', lines)
        self.assertEqual(lines[-1],
                         'not ok 4 cfq_test_latency_slice_extremes')
        self.assertEqual(len(lines), 5, 'the account and one result line')
        done = run('failure_lines "selftest scsi mq_cfq_depth.sh IDLE" '
                   f'"{self.tap(SELFTEST_TAP)}"')
        self.assertIn('# # an IDLE reader: at most 60 scheduler tags in use',
                      done.stdout.splitlines())


class SeveralTests(unittest.TestCase):
    """A mutant that names several tests is killed only if each fails."""
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(subprocess.run, ['rm', '-rf', self.dir])
        self.path = os.path.join(self.dir, 'm.patch')
        with open(self.path, 'w') as f:
            f.write('Defect: d\nTest: kunit cfq_test_latency_slice_extremes\n'
                    'Test: selftest scsi mq_cfq_depth.sh IDLE reader\n\n'
                    '--- a/block/x.c\nTest: kunit not_a_header_line\n')
        with open(os.path.join(self.dir, 'kunit'), 'w') as f:
            f.write(KUNIT_CONSOLE)

    def verdict(self, selftest_tap):
        with open(os.path.join(self.dir, 'selftest'), 'w') as f:
            f.write(selftest_tap)
        # Each test's TAP comes from the files above, not from a guest.
        done = run('sync_scratch() { :; }; apply_mutant() { :; }; '
                   'run_test() { local -a s; read -ra s <<<"$1"; '
                   f'echo "${{s[0]}}" >>{self.dir}/runs; '
                   f'echo "{self.dir}/${{s[0]}}"; }}; '
                   f'WORK={self.dir}; REPORT={self.dir}/report.md; '
                   f'run_mutant "{self.path}"; echo "$VERDICT"')
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout.strip()

    def test_one_run_for_the_lines_of_one_kselftest(self):
        with open(self.path) as f:
            text = f.read()
        with open(self.path, 'w') as f:
            f.write(text.replace(
                'Test: selftest scsi mq_cfq_depth.sh IDLE reader\n',
                'Test: selftest scsi mq_cfq_depth.sh IDLE reader\n'
                'Test: selftest scsi mq_cfq_depth.sh ^an IDLE\n', 1))
        self.verdict(SELFTEST_TAP)
        with open(os.path.join(self.dir, 'runs')) as f:
            self.assertEqual(f.read().split(), ['kunit', 'selftest'])

    def test_the_tests_are_the_header_lines(self):
        done = run(f'mutant_tests "{self.path}"')
        self.assertEqual(done.stdout.splitlines(),
                         ['kunit cfq_test_latency_slice_extremes',
                          'selftest scsi mq_cfq_depth.sh IDLE reader'])

    def test_killed_when_every_test_fails(self):
        self.assertEqual(self.verdict(SELFTEST_TAP), 'killed')
        with open(os.path.join(self.dir, 'report.md')) as f:
            report = f.read()
        self.assertIn('not ok 4 cfq_test_latency_slice_extremes', report)
        self.assertIn('# # an IDLE reader: at most 60 scheduler tags in use',
                      report)

    def test_survives_when_one_test_passes(self):
        tap = SELFTEST_TAP.replace('# not ok 1 an IDLE', '# ok 1 an IDLE')
        self.assertEqual(self.verdict(tap), 'survived '
                         '(`selftest scsi mq_cfq_depth.sh IDLE reader`)')


class BadInput(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(subprocess.run, ['rm', '-rf', self.dir])

    def fails_with_one_line(self, done, words):
        self.assertNotEqual(done.returncode, 0)
        self.assertEqual(len(done.stderr.splitlines()), 1, done.stderr)
        self.assertIn(words, done.stderr)

    def test_an_unknown_mutant_is_named(self):
        done = subprocess.run(['bash', SCRIPT], capture_output=True,
                              text=True, check=False,
                              env=dict(os.environ, MUTANTS='no-such',
                                       BUILD=self.dir))
        self.fails_with_one_line(done, 'no mutant no-such; there are: ')
        self.assertFalse(os.listdir(self.dir))

    def mutant(self, header):
        path = os.path.join(self.dir, 'm.patch')
        with open(path, 'w') as f:
            f.write(header + '\n--- a/block/x.c\n+++ b/block/x.c\n')
        return path

    def test_a_mutant_must_say_what_it_undoes(self):
        path = self.mutant('Test: kunit cfq_test_charge_extremes')
        done = run(f'check_mutant "{path}"')
        self.fails_with_one_line(done, "has no 'Defect:' line")

    def test_a_test_must_be_one_the_script_runs(self):
        for test, words in (
                ('Test: kunit', 'takes one case name'),
                ('Test: kunit a b', 'takes one case name'),
                ('Test: kunit cfq_test_charge', 'no KUnit case'),
                ('Test: selftest scsi tunables', 'lacks a part'),
                ('Test: selftest floppy tunables x', 'unknown disk kind'),
                ('Test: selftest scsi no_such_test x', 'no kselftest'),
                ('Test: selftest scsi tunables (x', 'not a regular expression'),
                ('Test: bisect 0004', 'lacks a part'),
                ('Test: bisect 4 x', 'no patch 4 in patches/series'),
                ('Test: bisect 9999 x', 'no patch 9999 in patches/series'),
                ('Test: bisect 0004 (x', 'not a regular expression'),
                ('Test: tap distro-config.sh', 'lacks a part'),
                ('Test: tap ../lib.sh x', 'no script scripts/../lib.sh'),
                ('Test: tap no-such.sh x', 'no script scripts/no-such.sh'),
                ('Test: bench physics-rand4k ssd', 'lacks a part'),
                ('Test: bench no-cell ssd x', 'no cell no-cell in bench/'),
                ('Test: bench physics-rand4k floppy x',
                 'no profile floppy in qemu/diskmodel/profiles.c'),
                ('Test: bench physics-rand4k ssd (x',
                 'not a regular expression'),
                ('Test: ltp x', "a 'Test:' line must be"),
                ('Test: kunit cfq_test_charge_extremes\nTest: kunit x_y',
                 'no KUnit case x_y')):
            with self.subTest(test=test):
                done = run('check_mutant '
                           f'"{self.mutant("Defect: d" + chr(10) + test)}"')
                self.fails_with_one_line(done, words)

    def test_a_mutant_must_name_a_test(self):
        done = run(f'check_mutant "{self.mutant("Defect: d")}"')
        self.fails_with_one_line(done, "has no 'Test:' line")

    def test_a_guest_of_1_to_8_cpus_for_a_kselftest(self):
        test = 'Test: selftest scsi mq_cfq_smp every_reader'
        for cpus in ('0', '16', 'four'):
            with self.subTest(cpus=cpus):
                path = self.mutant(f'Defect: d\n{test}\nCPUs: {cpus}')
                done = run(f'check_mutant "{path}"')
                self.fails_with_one_line(done, "'CPUs:' takes 1 to 8")
        for test in ('kunit cfq_test_charge_extremes', 'bisect 0004 W=1'):
            with self.subTest(test=test):
                path = self.mutant(f'Defect: d\nTest: {test}\nCPUs: 4')
                done = run(f'check_mutant "{path}"')
                self.fails_with_one_line(done, "'CPUs:' is for kselftests")

    def test_a_stale_mutant_is_refused(self):
        path = self.mutant('Defect: d\nTest: kunit cfq_test_charge_extremes')
        with open(path, 'a') as f:
            f.write('@@ -1 +1 @@\n-no such line\n+x\n')
        done = run(f'check_mutant "{path}"')
        self.fails_with_one_line(done, 'does not apply to this checkout')


if __name__ == '__main__':
    unittest.main()
