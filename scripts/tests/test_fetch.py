# SPDX-License-Identifier: GPL-2.0
"""scripts/fetch.sh after the pin moved (make rebase, or a pull): the
pristine tree of another version, and the trees and kernel objects made
from it, are dropped, so that the next build starts from the new source;
a tree of the pinned version, stamped or (from before the stamps) told by
its Makefile, is kept."""
import os
import subprocess
import tempfile
import unittest

FETCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fetch.sh')


class PinMoved(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.build = tmp.name
        for d in ('linux-pristine', 'linux', 'obj', 'obj-debug', 'export'):
            os.makedirs(os.path.join(self.build, d))
        self.pinned = self.fn('echo "$LINUX_PKG_VERSION"').strip()

    def fn(self, script):
        return subprocess.run(['bash', '-c', f'. "{FETCH}"; {script}'],
                              env=dict(os.environ, BUILD=self.build),
                              capture_output=True, text=True, check=True).stdout

    def makefile(self, sublevel):
        with open(os.path.join(self.build, 'linux-pristine', 'Makefile'), 'w') as f:
            f.write(f'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = {sublevel}\n'
                    'EXTRAVERSION =\n')

    def stamp(self, version):
        with open(os.path.join(self.build, 'pristine.version'), 'w') as f:
            f.write(version + '\n')

    def pinned_now(self):
        return self.fn('pristine_is_pinned && echo yes || echo no').strip() == 'yes'

    def test_a_stamped_tree_of_the_pin_is_kept(self):
        self.makefile(1)
        self.stamp(self.pinned)
        self.assertTrue(self.pinned_now())

    def test_an_unstamped_tree_is_told_by_its_makefile(self):
        self.makefile(self.pinned.split('-')[0].split('.')[2])
        self.assertTrue(self.pinned_now())
        self.makefile(1)
        self.assertFalse(self.pinned_now())

    def test_another_version_is_dropped_with_what_was_built_from_it(self):
        self.makefile(1)
        self.stamp('6.12.1-1')
        self.assertFalse(self.pinned_now())
        self.fn('drop_old_source 2>/dev/null')
        self.assertEqual(sorted(os.listdir(self.build)), [])


if __name__ == '__main__':
    unittest.main()
