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
        self.dropped = ('linux-pristine', 'linux', 'obj', 'obj-debug', 'export',
                        'kselftest', 'kselftest-install', 'kselftest-check',
                        'deb', 'initramfs.d')
        self.kept = ('dl', 'bench', 'disks', 'tools.d')
        for d in self.dropped + self.kept:
            os.makedirs(os.path.join(self.build, d))
        self.pinned = self.fn('echo "$LINUX_PKG_VERSION"').strip()

    def fn(self, script, check=True):
        return subprocess.run(['bash', '-c', f'. "{FETCH}"; {script}'],
                              env=dict(os.environ, BUILD=self.build),
                              capture_output=True, text=True, check=check).stdout

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
        self.assertEqual(sorted(os.listdir(self.build)), sorted(self.kept))

    def test_a_shared_pristine_tree_is_only_unlinked(self):
        shared = os.path.join(self.build, 'dl', 'shared-pristine')
        os.rename(os.path.join(self.build, 'linux-pristine'), shared)
        with open(os.path.join(shared, 'Makefile'), 'w') as f:
            f.write('SUBLEVEL = 1\n')
        os.chmod(os.path.join(shared, 'Makefile'), 0o444)
        os.symlink(shared, os.path.join(self.build, 'linux-pristine'))
        self.stamp('6.12.1-1')
        self.fn('drop_old_source 2>/dev/null')
        self.assertFalse(os.path.lexists(os.path.join(self.build, 'linux-pristine')))
        self.assertEqual(os.stat(os.path.join(shared, 'Makefile')).st_mode & 0o777, 0o444)

    def test_the_old_build_stays_when_the_new_source_cannot_be_had(self):
        self.makefile(1)
        self.stamp('6.12.1-1')
        self.fn('fetch_tarball() { die "not on the mirror"; }; fetch_main 2>/dev/null',
                check=False)
        self.assertEqual(sorted(os.listdir(self.build)),
                         sorted(self.dropped + self.kept + ('pristine.version',)))

    def test_a_dangling_shared_tree_counts_as_an_old_source(self):
        os.rmdir(os.path.join(self.build, 'linux-pristine'))
        os.symlink(os.path.join(self.build, 'moved-away'),
                   os.path.join(self.build, 'linux-pristine'))
        self.stamp('6.12.1-1')
        self.fn('fetch_tarball() { :; }; check_tarball() { :; }; '
                'unpack_pristine() { :; }; fetch_main 2>/dev/null')
        self.assertEqual(sorted(os.listdir(self.build)), sorted(self.kept))


if __name__ == '__main__':
    unittest.main()
