# SPDX-License-Identifier: GPL-2.0
"""scripts/rebase.sh's push_series: each patch onto the new source is
reported as clean, offset, fuzzed or rejected, the ones that moved are
refreshed to the new context, and nothing after a rejected one is
applied."""
import difflib
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REBASE = os.path.join(HERE, '..', 'rebase.sh')
QUILTRC = os.path.join(HERE, '..', 'quiltrc')


def lines(name):
    return [f'{name} line {i}\n' for i in range(1, 31)]


def diff(name, old, new):
    return ''.join(difflib.unified_diff(old, new, f'a/{name}', f'b/{name}'))


def changed(name, n):
    text = lines(name)
    text[n - 1] = f'{name} changed {n}\n'
    return text


class PushSeries(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tree = os.path.join(tmp.name, 'linux')
        self.patches = os.path.join(tmp.name, 'patches')
        os.makedirs(self.tree)
        os.makedirs(self.patches)
        # The patches are made against the old source ...
        self.names = ['a.c', 'b.c', 'c.c', 'd.c', 'e.c']
        for i, name in enumerate(self.names, 1):
            with open(os.path.join(self.patches, f'000{i}-{name}.patch'), 'w') as f:
                f.write(diff(name, lines(name), changed(name, 15)))
        # ... and the new one moved on: b.c by three lines above the
        # change, c.c in a context line, d.c in the changed line itself.
        new = {n: lines(n) for n in self.names}
        new['b.c'] = ['new 1\n', 'new 2\n', 'new 3\n'] + new['b.c']
        new['c.c'][12] = 'c.c moved 13\n'
        new['d.c'][14] = 'd.c other 15\n'
        for name, text in new.items():
            with open(os.path.join(self.tree, name), 'w') as f:
                f.writelines(text)

    def push(self):
        series = ' '.join(sorted(os.listdir(self.patches)))
        with open(os.path.join(self.patches, 'series'), 'w') as f:
            f.write(series.replace(' ', '\n') + '\n')
        script = (f'series_patches() {{ printf "%s\\n" {series}; }}; '
                  'NEW_TREE=$1; export QUILTRC=$2 QUILT_PATCHES=$3; '
                  'set +e; push_series; echo "status $?"')
        run = subprocess.run(['bash', '-c', f'. "{REBASE}"; {script}', 'bash',
                              self.tree, QUILTRC, self.patches],
                             capture_output=True, text=True, check=True)
        return [line for line in run.stdout.splitlines()
                if not line.startswith('    ')]

    def test_each_patch_is_reported_and_the_moved_ones_refreshed(self):
        self.assertEqual(self.push(), ['0001-a.c.patch: clean',
                                       '0002-b.c.patch: offset',
                                       '0003-c.c.patch: fuzzed',
                                       '0004-d.c.patch: rejected',
                                       'status 1'])
        # Refreshed: b.c's and c.c's patches now carry the new context.
        with open(os.path.join(self.patches, '0002-b.c.patch')) as f:
            self.assertIn('@@ -15,', f.read())
        with open(os.path.join(self.patches, '0003-c.c.patch')) as f:
            self.assertIn(' c.c moved 13', f.read())
        with open(os.path.join(self.patches, '0001-a.c.patch')) as f:
            self.assertEqual(f.read(), diff('a.c', lines('a.c'), changed('a.c', 15)))
        # Nothing after the rejected patch went on.
        with open(os.path.join(self.tree, 'e.c')) as f:
            self.assertEqual(f.readlines(), lines('e.c'))
        with open(os.path.join(self.tree, 'd.c')) as f:
            self.assertNotIn('d.c changed 15\n', f.readlines())


if __name__ == '__main__':
    unittest.main()
