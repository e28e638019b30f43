# SPDX-License-Identifier: GPL-2.0
"""scripts/whole-headings.py: a hunk heading that GNU diff cut at 40
columns gets the whole line from quilt's backup of the file, the nearest
one before the hunk; headings of new files and lines it cannot find stay
as they are; a patch that is not applied stops it with one line."""
import os
import subprocess
import tempfile
import unittest

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                    'whole-headings.py')
NAME = '0001-mm-a-change.patch'
OLD = ('static unsigned long ractl_max_pages(struct readahead_control *r)\n'
       '{\n\treturn 0;\n}\n\n'
       'static unsigned long ractl_max_pages(struct readahead_control *r,\n'
       '\t\t\t\t      unsigned long n)\n{\n\tint a;\n\n\treturn n;\n}\n')
CUT = 'static unsigned long ractl_max_pages(str'


def patch_text(heading):
    return ('Subject: [PATCH] a change\n---\n'
            '--- a/mm/x.c\n+++ b/mm/x.c\n'
            f'@@ -9,3 +9,4 @@ {heading}\n'
            ' \tint a;\n+\tint b;\n \n \treturn n;\n'
            '--- /dev/null\n+++ b/mm/new.c\n'
            '@@ -0,0 +1 @@ keep this\n+int c;\n')


class WholeHeadings(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.tree = self.tmp.name
        backup = os.path.join(self.tree, '.pc', NAME, 'mm')
        os.makedirs(backup)
        with open(os.path.join(backup, 'x.c'), 'w') as f:
            f.write(OLD)
        self.patch = os.path.join(self.tree, NAME)

    def run_tool(self, *patches):
        return subprocess.run(['python3', TOOL, self.tree, *patches],
                              capture_output=True, text=True, check=False)

    def write(self, heading):
        with open(self.patch, 'w') as f:
            f.write(patch_text(heading))

    def read(self):
        with open(self.patch) as f:
            return f.read()

    def test_cut_heading_gets_the_nearest_whole_line(self):
        self.write(CUT)
        self.assertEqual(0, self.run_tool(self.patch).returncode)
        whole = ('static unsigned long ractl_max_pages('
                 'struct readahead_control *r,')
        self.assertEqual(patch_text(whole), self.read())

    def test_unknown_heading_and_new_files_are_left(self):
        self.write('no such line')
        self.assertEqual(0, self.run_tool(self.patch).returncode)
        self.assertEqual(patch_text('no such line'), self.read())

    def test_unapplied_patch_is_refused(self):
        self.write(CUT)
        other = os.path.join(self.tree, '0002-other.patch')
        with open(other, 'w') as f:
            f.write(patch_text(CUT))
        result = self.run_tool(other)
        self.assertEqual(1, result.returncode)
        self.assertEqual(1, len(result.stderr.splitlines()))
        self.assertIn('0002-other.patch is not applied', result.stderr)

    def test_missing_patch_is_refused(self):
        result = self.run_tool(os.path.join(self.tree, 'nothing.patch'))
        self.assertEqual(1, result.returncode)
        self.assertIn('no patch', result.stderr)


if __name__ == '__main__':
    unittest.main()
