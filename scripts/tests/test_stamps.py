# SPDX-License-Identifier: GPL-2.0
"""record_stamps/restore_stamps (scripts/lib.sh): after prepare.sh takes
the series off and puts it on again, files whose content is unchanged get
their old mtime back, changed and new files the time now, and a file with
no recorded stamp (a fresh tree) is no error under set -u."""
import os
import subprocess
import tempfile
import unittest

LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib.sh')
OLD = 1_000_000_000.5


class Stamps(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.tree = os.path.join(self.tmp.name, 'tree')
        self.stamps = os.path.join(self.tmp.name, 'stamps')
        os.makedirs(os.path.join(self.tree, 'mm'))

    def write(self, name, text, mtime=None):
        path = os.path.join(self.tree, name)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)
        if mtime is not None:
            os.utime(path, (mtime, mtime))

    def mtime(self, name):
        return os.stat(os.path.join(self.tree, name)).st_mtime

    def lib(self, function, names):
        subprocess.run(['bash', '-c', f'. "{LIB}"; {function} "$1" "$2"',
                        'bash', self.tree, self.stamps],
                       input='\n'.join(names) + '\n', text=True,
                       check=True, capture_output=True)

    def test_unchanged_files_keep_their_mtime(self):
        self.write('mm/same.c', 'same', OLD)
        self.write('mm/changed.c', 'before', OLD)
        self.lib('record_stamps', ['mm/same.c', 'mm/changed.c'])
        # quilt pop and push: every file written anew
        self.write('mm/same.c', 'same')
        self.write('mm/changed.c', 'after')
        self.write('mm/new.c', 'new', OLD)
        self.lib('restore_stamps', ['mm/same.c', 'mm/changed.c', 'mm/new.c'])
        self.assertEqual(self.mtime('mm/same.c'), OLD)
        self.assertGreater(self.mtime('mm/changed.c'), OLD + 1000)
        self.assertGreater(self.mtime('mm/new.c'), OLD + 1000)
        self.assertFalse(os.path.exists(self.stamps))

    def test_fresh_tree_has_no_stamps(self):
        self.lib('record_stamps', [])
        self.write('mm/new.c', 'new', OLD)
        self.lib('restore_stamps', ['mm/new.c', 'mm/gone.c'])
        self.assertGreater(self.mtime('mm/new.c'), OLD + 1000)


if __name__ == '__main__':
    unittest.main()
