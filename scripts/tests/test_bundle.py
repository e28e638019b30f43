# SPDX-License-Identifier: GPL-2.0
"""make bundle's tar, and BUNDLE= unpacking it (qemu-lib.sh unpack_bundle)."""

import os
import subprocess
import tarfile
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIBS = f'. "{TOP}/scripts/lib.sh"; . "{TOP}/scripts/qemu-lib.sh"; '


def bash(script, build, *args):
    return subprocess.run(['bash', '-c', LIBS + script, 'bash', *args],
                          env=dict(os.environ, BUILD=build),
                          capture_output=True, text=True)


class Bundle(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.src = os.path.join(self.tmp.name, 'src')
        self.dst = os.path.join(self.tmp.name, 'dst')
        self.files = bash('guest_files', self.src).stdout.split()
        self.here = bash('checkout_id', self.src).stdout.strip()

    def tearDown(self):
        self.tmp.cleanup()

    def pack(self, built_from, extra=()):
        """A bundle as make bundle packs it, of kernels built from
        checkout @built_from; @extra: more members, not guest files."""
        for f in ['bundle.id', *self.files, *extra]:
            path = os.path.join(self.src, f)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'w') as out:
                out.write(built_from + '\n' if f == 'bundle.id' else f'contents of {f}\n')
            os.utime(path, (1e9, 1e9))
        bundle = os.path.join(self.tmp.name, 'bundle.tar')
        with tarfile.open(bundle, 'w') as tar:
            for f in ['bundle.id', *self.files, *extra]:
                tar.add(os.path.join(self.src, f), arcname=f)
        return bundle

    def test_the_files_the_guests_boot_from(self):
        self.assertEqual(len(self.files), 11)
        self.assertIn('obj/arch/x86/boot/bzImage', self.files)
        self.assertIn('obj-debug/arch/x86/boot/bzImage', self.files)
        self.assertIn('initramfs.cpio.gz', self.files)
        self.assertIn('tools.img', self.files)

    def test_unpacks_the_kernels_of_this_checkout(self):
        self.assertRegex(self.here, r'^[0-9a-f]{40}(\+[0-9a-f]{16})?$')
        for obj in ('obj', 'obj-debug'):
            os.makedirs(os.path.join(self.dst, obj))
            with open(os.path.join(self.dst, obj, '.config.digest'), 'w') as f:
                f.write('of the configuration before\n')
        run = bash('unpack_bundle "$1"', self.dst, self.pack(self.here, ['stray']))
        self.assertEqual(run.returncode, 0, run.stderr)
        for f in self.files:
            with open(os.path.join(self.dst, f)) as got, open(os.path.join(self.src, f)) as want:
                self.assertEqual(got.read(), want.read(), f)
        self.assertFalse(os.path.exists(os.path.join(self.dst, 'stray')))
        for obj in ('obj', 'obj-debug'):
            # newer than what kbuild made of the configuration before, and
            # configure's stamp gone: both redo their part
            self.assertGreater(os.path.getmtime(os.path.join(self.dst, obj, '.config')), 1e9)
            self.assertFalse(os.path.exists(os.path.join(self.dst, obj, '.config.digest')))

    def test_refuses_the_kernels_of_another_checkout(self):
        other = self.here.split('+')[0] + '+0123456789abcdef'
        run = bash('unpack_bundle "$1"', self.dst, self.pack(other))
        self.assertEqual(run.returncode, 1)
        self.assertEqual(run.stderr.splitlines()[-1].replace(self.tmp.name, 'T'),
                         f'error: BUNDLE=T/bundle.tar holds the kernels of {other}; '
                         f'this checkout is {self.here}')
        self.assertFalse(os.path.exists(os.path.join(self.dst, 'obj')))

    def test_refuses_what_is_not_a_bundle(self):
        other = os.path.join(self.tmp.name, 'other.tar')
        with open(other, 'w') as f:
            f.write('not a tar\n')
        run = bash('unpack_bundle "$1"', self.dst, other)
        self.assertEqual(run.returncode, 1)
        self.assertIn('other.tar: not a bundle of make bundle', run.stderr)
        run = bash('unpack_bundle "$1"', self.dst, other + '.missing')
        self.assertEqual(run.returncode, 1)
        self.assertIn('no such file (make bundle writes build/bundle.tar)', run.stderr)


if __name__ == '__main__':
    unittest.main()
