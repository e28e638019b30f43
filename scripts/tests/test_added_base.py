# SPDX-License-Identifier: GPL-2.0
"""scripts/lib.sh's added_base: a file the series adds, which later
patches change again, comes out as each of those patches leaves it when
the patches after it are taken off, and a patch that no longer comes off
the file stops it with one line that names the patch."""
import os
import subprocess
import tempfile
import unittest

LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                   'lib.sh')

# The file as the patch that adds it, then 0002 and 0003, leave it.
STATES = (
    ['first\n', 'middle\n', 'last\n'],
    ['first\n', 'policy\n', 'middle\n', 'last\n'],
    ['first\n', 'policy\n', 'middle\n', 'last\n', 'trace\n'],
)
FILE = 'mm/window.h'
SECOND = '0002-mm-add-a-policy.patch'
THIRD = '0003-mm-add-a-tracepoint.patch'


def unified_diff(old, new):
    """A patch of FILE from lines @old to lines @new, as quilt writes it."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, lines in (('old', old), ('new', new)):
            paths.append(os.path.join(tmp, name))
            with open(paths[-1], 'w') as f:
                f.writelines(lines)
        diff = subprocess.run(['diff', '-u', '--label', 'a/' + FILE,
                               '--label', 'b/' + FILE, *paths],
                              capture_output=True, text=True, check=False)
    return 'Subject: [PATCH] a change\n---\n' + diff.stdout


class AddedBase(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp()
        self.addCleanup(subprocess.run, ['rm', '-rf', self.top])
        os.makedirs(os.path.join(self.top, 'patches'))
        os.makedirs(os.path.join(self.top, 'mm'))
        with open(os.path.join(self.top, FILE), 'w') as f:
            f.writelines(STATES[2])
        for name, old, new in ((SECOND, STATES[0], STATES[1]),
                               (THIRD, STATES[1], STATES[2])):
            with open(os.path.join(self.top, 'patches', name), 'w') as f:
                f.write(unified_diff(old, new))
        self.out = os.path.join(self.top, 'out')

    def added_base(self, *patches):
        # TOP is set after lib.sh is sourced, which sets it to the repo.
        script = f'. "{LIB}"; TOP="$1"; shift; added_base "$@"'
        return subprocess.run(['bash', '-c', script, 'bash', self.top, FILE,
                               FILE, self.out, *patches],
                              capture_output=True, text=True, check=False)

    def output(self, *patches):
        done = self.added_base(*patches)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(self.out) as f:
            return f.readlines()

    def test_both_patches_off_gives_the_base(self):
        self.assertEqual(self.output(SECOND, THIRD), STATES[0])

    def test_the_later_patch_off_gives_what_the_earlier_leaves(self):
        self.assertEqual(self.output(THIRD), STATES[1])

    def test_no_patch_gives_the_file(self):
        self.assertEqual(self.output(), STATES[2])

    def test_a_patch_that_does_not_come_off_is_named(self):
        with open(os.path.join(self.top, FILE), 'w') as f:
            f.writelines(['changed\n'] + STATES[2][1:])
        done = self.added_base(SECOND, THIRD)
        self.assertNotEqual(done.returncode, 0)
        self.assertEqual(done.stderr.strip(),
                         f'error: patches/{SECOND} does not come off {FILE}:'
                         f' change that part of {FILE} in the patch too'
                         ' (README: Working on the series)')
        self.assertEqual(sorted(os.listdir(self.top)),
                         ['mm', 'patches'])


if __name__ == '__main__':
    unittest.main()
