# SPDX-License-Identifier: GPL-2.0
"""scripts/rebase-mutants.py: a mutant whose context moved (a refreshed
hunk heading of the patch it changes) is written again against today's
file, header kept, and then applies with no fuzz; one that no longer
applies is named, left as it was, and the exit status is 1."""
import os
import subprocess
import tempfile
import unittest

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                    'rebase-mutants.py')
PATCH = 'patches/0001-a.patch'
OLD = ('--- a/mm/x.c\n+++ b/mm/x.c\n@@ -10,4 +10,5 @@ static int f(void)\n'
       ' \tint a;\n+\tint b = 1;\n \n \treturn a;\n')
MUTANT = ('Defect: b starts at 0\nTest: kunit x\n\n'
          f'--- a/{PATCH}\n+++ b/{PATCH}\n@@ -1,6 +1,6 @@\n'
          ' --- a/mm/x.c\n +++ b/mm/x.c\n'
          ' @@ -10,4 +10,5 @@ static int f(void)\n'
          '  \tint a;\n-+\tint b = 1;\n++\tint b = 0;\n  \n')


class RebaseMutants(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        os.makedirs(os.path.join(self.tmp.name, 'patches'))
        os.makedirs(os.path.join(self.tmp.name, 'mutants'))
        self.write('patches/series', '0001-a.patch\n')
        self.write('mutants/m.patch', MUTANT)

    def write(self, path, text):
        with open(os.path.join(self.tmp.name, path), 'w',
                  encoding='utf-8') as f:
            f.write(text)

    def read(self, path):
        with open(os.path.join(self.tmp.name, path), encoding='utf-8') as f:
            return f.read()

    def run_tool(self, *args):
        return subprocess.run(['python3', TOOL, *args], cwd=self.tmp.name,
                              capture_output=True, text=True)

    def applies_without_fuzz(self):
        diff = self.read('mutants/m.patch').partition('\n\n')[2]
        return subprocess.run(['patch', '-p1', '--dry-run', '-F0', '-s'],
                              cwd=self.tmp.name, input=diff, text=True,
                              capture_output=True).returncode == 0

    def test_moved_heading_is_rebased(self):
        self.write(PATCH, OLD.replace('-10,4 +10,5', '-12,4 +12,5'))
        self.assertFalse(self.applies_without_fuzz())
        done = self.run_tool('mutants/m.patch')
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        text = self.read('mutants/m.patch')
        self.assertTrue(text.startswith(
            'Defect: b starts at 0\nTest: kunit x\n\n'))
        self.assertIn('++\tint b = 0;', text)
        self.assertTrue(self.applies_without_fuzz())

    def test_a_mutant_that_no_longer_applies_is_kept(self):
        self.write(PATCH, OLD.replace('int b = 1', 'long b = 1'))
        done = self.run_tool('mutants/m.patch')
        self.assertEqual(done.returncode, 1)
        self.assertIn('does not apply', done.stdout)
        self.assertEqual(self.read('mutants/m.patch'), MUTANT)

    def test_outside_the_repository_top(self):
        os.remove(os.path.join(self.tmp.name, 'patches', 'series'))
        done = self.run_tool('mutants/m.patch')
        self.assertNotEqual(done.returncode, 0)
        self.assertEqual(len(done.stderr.splitlines()), 1)


if __name__ == '__main__':
    unittest.main()
