# SPDX-License-Identifier: GPL-2.0
"""scripts/ra-matrix.sh: the matrix's runs come in the order of
bench/ra-matrix.conf, a run recorded for this source is not run again
(one recorded for another source is, and so is one whose results are
gone), and bad input fails with one line before anything runs."""
import os
import subprocess
import tempfile
import unittest

MATRIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                      'ra-matrix.sh')


# What the caller's environment may set that the script refuses: a test
# sets them itself ("make test DEBUG=1" exports DEBUG).
REFUSED = ('DEBUG', 'KERNEL_IMAGE')


def matrix(function, **knobs):
    """Run @function of ra-matrix.sh, sourced; the completed process."""
    env = {k: v for k, v in os.environ.items() if k not in REFUSED}
    return subprocess.run(['bash', '-c', f'. "{MATRIX}"; ' + function],
                          env=dict(env, **knobs),
                          capture_output=True, text=True, check=False)


class Entries(unittest.TestCase):
    def setUp(self):
        self.build = tempfile.mkdtemp()
        self.addCleanup(subprocess.run, ['rm', '-rf', self.build])

    def lines(self, function, **knobs):
        done = matrix(function, BUILD=self.build, **knobs)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout.splitlines()

    def test_in_the_order_of_the_file(self):
        entries = self.lines('matrix_entries')
        self.assertEqual(entries[0], 'hdd 256 seed002-seq16k')
        self.assertEqual(len(entries), len(set(entries)))
        self.assertIn('raid4 1024 seed002-squeeze', entries)

    def test_recorded_runs_are_not_left_for_their_source_only(self):
        os.makedirs(os.path.join(self.build, 'bench', '20261205-1'))
        with open(os.path.join(self.build, 'bench', '20261205-1',
                               'summary.json'), 'w') as summary:
            summary.write('{}\n')
        with open(os.path.join(self.build, 'bench', 'ra-matrix.tsv'),
                  'w') as ledger:
            ledger.write('src1\thdd\t256\tseed002-seq16k\t20261205-1\n')
            ledger.write('src1\thdd\t256\tseed002-rand16k\t20261205-2\n')
        left = self.lines('entries_left src1')
        self.assertNotIn('hdd 256 seed002-seq16k', left)
        self.assertEqual(left[0], 'hdd 256 seed002-seq16k-xfs')
        self.assertEqual(self.lines('entries_left src2')[0],
                         'hdd 256 seed002-seq16k')
        self.assertEqual(self.lines(
            'recorded_run src1 "hdd 256 seed002-seq16k"'), ['20261205-1'])
        self.assertIn('hdd 256 seed002-rand16k', left)


class BadInput(unittest.TestCase):
    def one_line_error(self, done, text):
        self.assertNotEqual(done.returncode, 0)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1,
                         done.stderr)
        self.assertIn(text, done.stderr)

    def test_limit_must_be_a_whole_number(self):
        self.one_line_error(matrix('run_matrix src1', LIMIT='two'),
                            'LIMIT=two')

    def test_an_unknown_cell_fails(self):
        with tempfile.NamedTemporaryFile('w', suffix='.conf') as conf:
            conf.write('hdd 256 seed002-seq16k seed002-nosuch\n')
            conf.flush()
            self.one_line_error(
                matrix(f'MATRIX_CONF={conf.name}; check_matrix_cells'),
                "unknown cell 'seed002-nosuch'")

    def test_a_short_line_or_a_bad_memory_fails(self):
        for line in ('hdd 256\n', 'hdd 0256 seed002-seq16k\n'):
            with tempfile.NamedTemporaryFile('w', suffix='.conf') as conf:
                conf.write('# comment\n' + line)
                conf.flush()
                self.one_line_error(
                    matrix(f'MATRIX_CONF={conf.name}; check_matrix_cells'),
                    f'{conf.name}:2:')

    def test_the_debug_kernel_or_another_image_fails(self):
        for knobs in ({'DEBUG': '1'}, {'KERNEL_IMAGE': '/tmp/bzImage'}):
            self.one_line_error(matrix('check_environment', **knobs),
                                list(knobs)[0])

    def test_an_unknown_action_fails(self):
        self.one_line_error(matrix('main', ACTION='go'), 'ACTION=go')


if __name__ == '__main__':
    unittest.main()
