# SPDX-License-Identifier: GPL-2.0
"""Self-test of scripts/kselftest-warnings.awk, the filter behind
check.sh's "the iosched kselftests build without warnings": it must keep
every warning of a test's own (at its line, or at a harness line that a
test's macro use caused), name the program and the test's line, and
leave out only kselftest_harness.h's two warnings of its own."""
import os
import subprocess
import unittest

FILTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                      'kselftest-warnings.awk')


def warnings(log):
    """The filter's output lines for build log @log."""
    done = subprocess.run(['awk', '-f', FILTER], input=log, text=True,
                          capture_output=True, check=True)
    return done.stdout.splitlines()


HARNESS_OWN = '''make[1]: Entering directory '/t/iosched'
  CC       tunables
In file included from tunables.c:18:
../kselftest_harness.h: In function '__timeout_handler':
../kselftest_harness.h:977:63: warning: unused parameter 'ucontext' [-Wunused-parameter]
  977 | static void __timeout_handler(int sig, siginfo_t *info, void *ucontext)
tunables.c: In function 'wrapper_tunables_table_matches_sysfs':
../kselftest_harness.h:419:23: warning: variable 'child' might be clobbered by 'longjmp' or 'vfork' [-Wclobbered]
  419 |                 pid_t child = 1; \\
../kselftest_harness.h:400:9: note: in expansion of macro '__TEST_F_IMPL'
tunables.c:159:1: note: in expansion of macro 'TEST_F'
make[1]: warning: jobserver unavailable: using -j1.
'''

TESTS_OWN = '''  CC       elevator_sysfs
elevator_sysfs.c:54:49: warning: '/driver' directive output may be truncated [-Wformat-truncation=]
  CC       mq_cfq_ioprio
../kselftest_harness.h:115:40: warning: '%s' directive argument is null [-Wformat-overflow=]
../kselftest_harness.h:110:17: note: in expansion of macro '__TH_LOG'
mq_cfq_ioprio.c:310:25: note: in expansion of macro 'TH_LOG'
mq_cfq_ioprio.c:331:1: note: in expansion of macro 'TEST_F'
../kselftest_harness.h:115:40: warning: '%s' directive argument is null [-Wformat-overflow=]
mq_cfq_ioprio.c:344:25: note: in expansion of macro 'TH_LOG'
  CC       readahead
../kselftest_harness.h:521:52: warning: comparison of integer expressions of different signedness [-Wsign-compare]
readahead.c:699:9: note: in expansion of macro 'ASSERT_LT'
cc1: warning: command-line option '-Wfoo' is valid for C++ but not for C
'''


class KselftestWarnings(unittest.TestCase):
    def test_harness_own_warnings_are_left_out(self):
        self.assertEqual(warnings(HARNESS_OWN), [])

    def test_every_warning_of_a_test_is_kept_with_its_program(self):
        self.assertEqual(warnings(TESTS_OWN), [
            "elevator_sysfs: elevator_sysfs.c:54:49: warning: '/driver' "
            "directive output may be truncated [-Wformat-truncation=]",
            "mq_cfq_ioprio: ../kselftest_harness.h:115:40: warning: '%s' "
            "directive argument is null [-Wformat-overflow=] "
            "[mq_cfq_ioprio.c:310:25]",
            "mq_cfq_ioprio: ../kselftest_harness.h:115:40: warning: '%s' "
            "directive argument is null [-Wformat-overflow=] "
            "[mq_cfq_ioprio.c:344:25]",
            "readahead: ../kselftest_harness.h:521:52: warning: comparison "
            "of integer expressions of different signedness "
            "[-Wsign-compare] [readahead.c:699:9]",
            "readahead: cc1: warning: command-line option '-Wfoo' is valid "
            "for C++ but not for C",
        ])

    def test_other_harness_warnings_are_kept(self):
        log = ('  CC       writers\n'
               "../kselftest_harness.h:977:63: warning: unused parameter "
               "'info' [-Wunused-parameter]\n")
        self.assertEqual(len(warnings(log)), 1)


if __name__ == '__main__':
    unittest.main()
