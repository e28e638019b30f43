# SPDX-License-Identifier: GPL-2.0
"""lock_build (scripts/lib.sh): one make target at a time per build/."""

import os
import re
import signal
import subprocess
import tempfile
import time
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# An entry point as the scripts are: lib.sh, lock_build, then its work.
# "$1" names it in the shared log, it holds the build for "$2" s, then
# does "$3": nothing, "nest" (runs itself again as a child), "daemon"
# (leaves a daemon as nbdkit does, without the lock, its PID in
# daemon.pid),
# "leftover" (leaves a process that logs "$1 leftover end" 2 s later),
# "trap" (sleeps 30 s, and its EXIT trap logs "$1 cleaned" 1 s after it
# is killed) or "fail" (exit 3).
ENTRY = r'''#!/bin/bash
. "%s/scripts/lib.sh"
lock_build
echo "$1 start" >>"$BUILD/order"
sleep "$2"
case ${3:-} in
nest) "$0" "$1-child" 0 ;;
daemon) without_build_lock setsid -f sh -c 'echo $$ >"$0"; exec sleep 60' "$BUILD/daemon.pid" </dev/null >/dev/null 2>&1 ;;
leftover) (sleep 2; echo "$1 leftover end" >>"$BUILD/order") >/dev/null 2>&1 & ;;
trap) trap 'sleep 1; echo "$1 cleaned" >>"$BUILD/order"' EXIT; sleep 30 ;;
fail) exit 3 ;;
esac
echo "$1 end" >>"$BUILD/order"
''' % TOP


class BuildLock(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.build = os.path.join(self.tmp.name, 'build')
        self.entry = os.path.join(self.tmp.name, 'entry.sh')
        with open(self.entry, 'w') as f:
            f.write(ENTRY)
        os.chmod(self.entry, 0o755)
        self.env = dict(os.environ, BUILD=self.build)
        self.env.pop('BUILD_LOCKED', None)
        self.started = []

    def tearDown(self):
        # What a failed test left running: its output would break the
        # lines of the unittest log that make test counts.
        for run in self.started:
            if run.poll() is None:
                os.killpg(run.pid, signal.SIGKILL)
            run.communicate()
        pid = os.path.join(self.build, 'daemon.pid')
        if os.path.exists(pid):
            with open(pid) as f:
                subprocess.run(['kill', f.read().strip()], check=False)
        self.tmp.cleanup()

    def start(self, *args, build=None):
        env = dict(self.env, BUILD=build or self.build)
        run = subprocess.Popen([self.entry, *args], env=env, text=True,
                               stderr=subprocess.PIPE, start_new_session=True)
        self.started.append(run)
        return run

    def order(self, build=None):
        with open(os.path.join(build or self.build, 'order')) as f:
            return f.read().split('\n')[:-1]

    def wait_for(self, line, timeout=20):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if os.path.exists(os.path.join(self.build, 'order')) and \
               line in self.order():
                return
            time.sleep(0.05)
        self.fail(f'"{line}" not logged within {timeout} s')

    def test_second_target_waits_and_names_the_first(self):
        first = self.start('A', '2')
        self.wait_for('A start')
        second = self.start('B', '0')
        _, err = second.communicate(timeout=30)
        first.communicate(timeout=30)
        self.assertEqual(self.order(), ['A start', 'A end', 'B start', 'B end'])
        self.assertRegex(err, r'waiting for \S*/entry\.sh \(pid \d+, since .*\) '
                         r'to finish with ' + re.escape(self.build))

    def test_scripts_it_starts_do_not_wait_for_it(self):
        run = self.start('A', '0', 'nest')
        run.communicate(timeout=30)
        self.assertEqual(run.returncode, 0)
        self.assertEqual(self.order(),
                         ['A start', 'A-child start', 'A-child end', 'A end'])

    def test_what_it_leaves_running_holds_the_lock(self):
        first = self.start('A', '0', 'leftover')
        first.communicate(timeout=30)
        second = self.start('B', '0')
        _, err = second.communicate(timeout=30)
        self.assertIn('waiting for', err)
        self.assertEqual(self.order(), ['A start', 'A end', 'A leftover end',
                                        'B start', 'B end'])

    def test_a_killed_target_holds_it_until_it_has_cleaned_up(self):
        first = self.start('A', '0', 'trap')
        self.wait_for('A start')
        second = self.start('B', '0')
        time.sleep(0.5)
        # As a CI engine's timeout stops a job. (Not SIGINT: a make test
        # started in the background by a script ignores it, and so do the
        # tests it runs.)
        os.killpg(first.pid, signal.SIGTERM)
        second.communicate(timeout=30)
        first.communicate(timeout=30)
        self.assertEqual(self.order(), ['A start', 'A cleaned', 'B start', 'B end'])

    def test_a_daemon_started_without_it_does_not_hold_it(self):
        first = self.start('A', '0', 'daemon')
        first.communicate(timeout=30)
        began = time.monotonic()
        second = self.start('B', '0')
        _, err = second.communicate(timeout=30)
        self.assertLess(time.monotonic() - began, 10)
        self.assertNotIn('waiting', err)
        self.assertEqual(self.order(), ['A start', 'A end', 'B start', 'B end'])

    def test_exit_status_passes_through(self):
        run = self.start('A', '0', 'fail')
        run.communicate(timeout=30)
        self.assertEqual(run.returncode, 3)

    def test_another_build_directory_does_not_wait(self):
        other = os.path.join(self.tmp.name, 'other')
        first = self.start('A', '3')
        self.wait_for('A start')
        second = self.start('B', '0', build=other)
        second.communicate(timeout=30)
        self.assertIsNone(first.poll(), 'the first target ended before the second')
        self.assertEqual(self.order(other), ['B start', 'B end'])
        first.communicate(timeout=30)

    # deps.sh only installs host packages, as root: a lock file it made
    # would belong to root.
    UNLOCKED = {'scripts/deps.sh'}

    def test_every_make_target_script_takes_the_lock(self):
        with open(os.path.join(TOP, 'Makefile')) as f:
            scripts = sorted(set(re.findall(r'@((?:scripts|qemu)/[\w-]+\.sh)', f.read())))
        self.assertIn('scripts/test.sh', scripts)
        unlocked = []
        for script in set(scripts) - self.UNLOCKED:
            with open(os.path.join(TOP, script)) as f:
                if not re.search(r'^\s*lock_build\b', f.read(), re.M):
                    unlocked.append(script)
        self.assertEqual(unlocked, [])


if __name__ == '__main__':
    unittest.main()
