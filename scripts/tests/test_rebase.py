# SPDX-License-Identifier: GPL-2.0
"""scripts/rebase.sh's push_series: each patch onto the new source is
reported as clean, offset, fuzzed or rejected, the ones that moved are
refreshed to the new context, and nothing after a rejected one is
applied. Its Debian pins follow the source's version, and stay as they
are when a package cannot be had."""
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


PINS = '''# comment
LINUX_PKG_VERSION=6.12.118-1~deb12u1
DEBIAN_CONFIG_PKG=linux-config-6.12
DEBIAN_CONFIG_PKG_VERSION=6.12.118-1~deb12u1
DEBIAN_CONFIG_FILE=usr/src/linux-config-6.12/config.amd64_none_amd64.xz
DEBIAN_CONFIG_SHA256=oldconfig
DEBIAN_SYMVERS_PKG=linux-headers-6.12.118+deb12-amd64
DEBIAN_SYMVERS_PKG_VERSION=6.12.118-1~deb12u1
DEBIAN_SYMVERS_FILE=usr/src/linux-headers-6.12.118+deb12-amd64/Module.symvers
DEBIAN_SYMVERS_SHA256=oldsymvers
'''


class DebianPins(unittest.TestCase):
    """resolve_debian_pins and set_pins on a pin file of their own, with
    the package mirror stubbed: its newest configuration, and the sha256
    of a file in a package (or the package missing)."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.pin_file = os.path.join(tmp.name, 'base-kernel.env')
        with open(self.pin_file, 'w') as f:
            f.write(PINS)

    def follow(self, version, newest_config, missing=''):
        script = ('. "$1"; PIN_FILE=$2; . "$2"; NEWEST=$3 MISSING=$4; '
                  'newest_in_mirror() { echo "$NEWEST"; }; '
                  'package_file_sha256() { [ "$1" != "$MISSING" ] || '
                  'die "$1 version $2 is not available"; echo "sum-of-$1-$2"; }; '
                  'resolve_debian_pins "$5"; set_pins "${DEBIAN_PINS[@]}"')
        run = subprocess.run(['bash', '-c', script, 'bash', REBASE,
                              self.pin_file, newest_config, missing, version],
                             capture_output=True, text=True)
        with open(self.pin_file) as f:
            pins = dict(line.split('=', 1) for line in f.read().splitlines()
                        if '=' in line)
        return run, pins

    def test_a_new_version_moves_the_headers_and_the_configuration(self):
        run, pins = self.follow('6.12.119-1~deb12u1', '6.12.120-1~deb12u1')
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(pins['DEBIAN_SYMVERS_PKG'], 'linux-headers-6.12.119+deb12-amd64')
        self.assertEqual(pins['DEBIAN_SYMVERS_PKG_VERSION'], '6.12.119-1~deb12u1')
        self.assertEqual(pins['DEBIAN_SYMVERS_FILE'],
                         'usr/src/linux-headers-6.12.119+deb12-amd64/Module.symvers')
        self.assertEqual(pins['DEBIAN_SYMVERS_SHA256'],
                         'sum-of-linux-headers-6.12.119+deb12-amd64-6.12.119-1~deb12u1')
        self.assertEqual(pins['DEBIAN_CONFIG_PKG_VERSION'], '6.12.120-1~deb12u1')
        self.assertEqual(pins['DEBIAN_CONFIG_SHA256'],
                         'sum-of-linux-config-6.12-6.12.120-1~deb12u1')
        self.assertEqual(pins['LINUX_PKG_VERSION'], '6.12.118-1~deb12u1')
        self.assertIn('Module.symvers: linux-headers-6.12.119+deb12-amd64', run.stderr)

    def test_pins_that_follow_already_stay(self):
        # Stale package lists may offer an older configuration: not taken.
        run, _ = self.follow('6.12.118-1~deb12u1', '6.12.117-1~deb12u1')
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(self.pin_file) as f:
            self.assertEqual(f.read(), PINS)
        self.assertEqual(run.stderr, '')

    def test_a_missing_package_changes_no_pin(self):
        run, _ = self.follow('6.12.119-1~deb12u1', '6.12.120-1~deb12u1',
                             missing='linux-config-6.12')
        self.assertNotEqual(run.returncode, 0)
        self.assertIn('linux-config-6.12 version 6.12.120-1~deb12u1 is not available',
                      run.stderr)
        with open(self.pin_file) as f:
            self.assertEqual(f.read(), PINS)


if __name__ == '__main__':
    unittest.main()
