# SPDX-License-Identifier: GPL-2.0
"""Self-test of scripts/tap-count.awk, the counter behind every
"N passed, N failed": a stream that stops early, has no plan or
contradicts its plan must count as a failure."""
import os
import subprocess
import unittest

COUNTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                       'tap-count.awk')


def count(stream):
    """(passed, failed, skipped) and the counter's stderr for @stream."""
    done = subprocess.run(['awk', '-f', COUNTER], input=stream, text=True,
                          capture_output=True, check=True)
    return tuple(map(int, done.stdout.split())), done.stderr


KSELFTEST = '''TAP version 13
1..2
# timeout set to 45
# selftests: iosched: one
# TAP version 13
# 1..2
# ok 1 first
# ok 2 second
# # Totals: pass:2 fail:0 xfail:0 xpass:0 skip:0 error:0
ok 1 selftests: iosched: one
# selftests: iosched: two
# TAP version 13
# 1..1
# ok 1 only # SKIP no such device
ok 2 selftests: iosched: two
'''

KUNIT = '''[    1.000000] KTAP version 1
[    1.000001] 1..1
[    1.000002]     KTAP version 1
[    1.000003]     # Subtest: suite
[    1.000004]     1..2
[    1.000005]     ok 1 plain
[    1.000006]         KTAP version 1
[    1.000007]         # Subtest: params
[    1.000008]         ok 1 params-0
[    1.000009]         ok 2 params-1
[    1.000010]     # params: pass:2 fail:0 skip:0 total:2
[    1.000011]     ok 2 params
[    1.000012] # Totals: pass:3 fail:0 skip:0 total:3
[    1.000013] ok 1 suite
'''


class TapCountTest(unittest.TestCase):
    def test_complete_kselftest_stream(self):
        self.assertEqual(count(KSELFTEST)[0], (2, 0, 1))

    def test_kunit_log_with_unplanned_parameters(self):
        self.assertEqual(count(KUNIT)[0], (3, 0, 0))

    def test_plan_at_the_end(self):
        self.assertEqual(count('ok 1 a\nok 2 b\n1..2\n')[0], (2, 0, 0))

    def test_stream_cut_before_its_planned_end_fails(self):
        counts, err = count('TAP version 13\n1..3\nok 1 a\nok 2 b\n')
        self.assertEqual(counts, (2, 1, 0))
        self.assertIn('planned 3, ran 2', err)

    def test_stream_without_a_plan_fails(self):
        counts, err = count('ok 1 a\nok 2 b\n')
        self.assertEqual(counts, (2, 1, 0))
        self.assertIn('no plan', err)

    def test_more_results_than_planned_fails(self):
        counts, _ = count('1..1\nok 1 a\nok 2 b\n')
        self.assertEqual(counts, (2, 1, 0))

    def test_subtest_cut_short_under_a_passing_parent_fails(self):
        stream = KSELFTEST.replace('# ok 2 second\n', '')
        counts, err = count(stream)
        self.assertEqual(counts, (1, 1, 1))
        self.assertIn('planned 2, ran 1', err)

    def test_crashed_test_is_one_failure(self):
        stream = ('1..1\n# 1..3\n# ok 1 a\n'
                  'not ok 1 selftests: iosched: crashed # exit=139\n')
        self.assertEqual(count(stream)[0], (1, 1, 0))

    def test_empty_plan_is_complete(self):
        self.assertEqual(count('TAP version 13\n1..0\n')[0], (0, 0, 0))

    def test_each_document_keeps_its_own_plan(self):
        two = 'TAP version 13\n1..1\nok 1 a\nTAP version 13\n1..2\nok 1 b\n'
        counts, err = count(two)
        self.assertEqual(counts, (2, 1, 0))
        self.assertIn('planned 2, ran 1', err)

    def test_bail_out_fails(self):
        counts, err = count('1..2\nok 1 a\nBail out! disk gone\n')
        self.assertEqual(counts[1], 2)
        self.assertIn('Bail out!', err)

    def test_failure_is_shown_with_what_its_test_printed(self):
        stream = ('1..1\n# 1..2\n'
                  '#  RUN           w.finish ...\n'
                  '# # w.c:637:finish:lockout bounds: a read 900 ms\n'
                  '# # w.c:655:finish:reader 4 was locked out 1200 ms\n'
                  '#          FAIL  w.finish\n'
                  '# not ok 1 w.finish\n'
                  '# # passing test output\n'
                  '# ok 2 w.other\n'
                  'not ok 1 selftests: iosched: w\n')
        counts, err = count(stream)
        self.assertEqual(counts, (1, 1, 0))
        lines = err.splitlines()
        self.assertEqual(lines, [
            '    | w.c:637:finish:lockout bounds: a read 900 ms',
            '    | w.c:655:finish:reader 4 was locked out 1200 ms',
            '  FAIL not ok 1 w.finish'])

    def test_only_the_last_lines_before_a_failure_are_shown(self):
        noise = ''.join('# line %d\n' % i for i in range(40))
        _, err = count('1..1\n' + noise + 'not ok 1 a\n')
        shown = [line for line in err.splitlines() if line.startswith('    |')]
        self.assertEqual(len(shown), 30)
        self.assertEqual(shown[0], '    | line 10')
        self.assertEqual(shown[-1], '    | line 39')


LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib.sh')


class TapResult(unittest.TestCase):
    """lib.sh's tap_result, the ok/not ok line of make check's checks."""

    def test_ok_without_complaints_and_not_ok_with_them(self):
        script = (f'. "{LIB}"; n=4; bad=0; tap_result first ""; '
                  "tap_result second $'a: 1\\nb: 2'; echo \"$n $bad\"")
        out = subprocess.run(['bash', '-c', script], capture_output=True,
                             text=True, check=True).stdout
        self.assertEqual(out, 'ok 5 first\n# a: 1\n# b: 2\nnot ok 6 second\n6 1\n')
        self.assertEqual(count(out.rsplit('\n', 2)[0] + '\n1..2\n')[0], (1, 1, 0))


if __name__ == '__main__':
    unittest.main()
