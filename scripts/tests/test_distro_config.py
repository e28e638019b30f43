# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/distro-config.py: what counts as a difference."""
import importlib.util
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = importlib.util.spec_from_file_location(
    'distro_config', os.path.join(HERE, '..', 'distro-config.py'))
distro_config = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(distro_config)

KCONFIG = '''config PROMPTED
	bool "A prompt"
	default y

config HIDDEN
	bool
	default y

config CHOSEN
	tristate
	prompt "Another prompt"
'''


class DistroConfigTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)
        return path

    def test_only_prompted_symbols_are_compared(self):
        path = self.write('Kconfig', KCONFIG)
        self.assertEqual(distro_config.prompted_symbols(path),
                         ['PROMPTED', 'CHOSEN'])

    def test_module_counts_as_built_in(self):
        lines, failed = distro_config.compare(
            ['A'], {}, {'A': 'y'}, {'A': 'm'})
        self.assertEqual(failed, 0)
        self.assertEqual(lines, ['ok 1 more symbols of configs/distro-check '
                                 'are as in Debian'])

    def test_unexplained_difference_fails(self):
        lines, failed = distro_config.compare(
            ['A'], {}, {'A': 'n'}, {'A': 'y'})
        self.assertEqual(failed, 1)
        self.assertTrue(lines[0].startswith('not ok CONFIG_A is n here'))

    def test_explained_difference_passes_with_reason(self):
        lines, failed = distro_config.compare(
            ['A'], {'A': 'no such hardware'}, {}, {'A': 'y'})
        self.assertEqual(failed, 0)
        self.assertIn('no such hardware', lines[0])

    def test_stale_reason_fails(self):
        lines, failed = distro_config.compare(
            ['A'], {'A': 'was different once'}, {'A': 'y'}, {'A': 'y'})
        self.assertEqual(failed, 1)
        self.assertIn('drop its "differs" line', lines[0])

    def test_symbols_debian_lacks_are_the_series_own(self):
        lines, failed = distro_config.compare(
            ['MQ_IOSCHED_CFQ'], {}, {'MQ_IOSCHED_CFQ': 'y'}, {})
        self.assertEqual(failed, 0)
        self.assertEqual(len(lines), 1)

    def test_bad_check_line_is_an_error(self):
        path = self.write('check', 'kconfig\n')
        with self.assertRaises(distro_config.CheckError):
            distro_config.read_check(path, self.dir.name)


if __name__ == '__main__':
    unittest.main()
