# SPDX-License-Identifier: GPL-2.0
"""make deb's trimmed kernel keeps only the modules of
configs/deb-guest.lsmod: every driver a disk kind of qemu/disks.conf
binds, every scheduler, and what scripts/deb-boot.sh loads before the
guest mounts its tools disk must be on that list, or the package's
kernel boots without them."""
import os
import re
import unittest

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')


def read(path):
    with open(os.path.join(TOP, path)) as f:
        return f.read()


def listed_modules():
    return {line.split()[0] for line in read('configs/deb-guest.lsmod').splitlines()[1:]
            if line.strip()}


class DebGuestModules(unittest.TestCase):
    def test_every_disk_kinds_driver_is_kept(self):
        drivers = {line.split()[2] for line in read('qemu/disks.conf').splitlines()
                   if line.strip() and not line.startswith('#')}
        self.assertTrue(drivers)
        self.assertEqual(drivers - listed_modules(), set())

    def test_every_scheduler_and_their_core_are_kept(self):
        self.assertEqual({'mq_cfq_iosched', 'mq_as_iosched', 'blk_ioq', 'bfq',
                          'kyber_iosched'} - listed_modules(), set())

    def test_what_the_boot_loads_first_is_kept(self):
        first = re.search(r'^FIRST_MODULES=(\S+)$', read('scripts/deb-boot.sh'),
                          re.M).group(1).split(',')
        self.assertEqual(set(first) - listed_modules(), set())

    def test_the_lsmod_file_has_lsmod_header(self):
        # localmodconfig skips the first line only if it starts "Module".
        self.assertTrue(read('configs/deb-guest.lsmod').startswith('Module '))


if __name__ == '__main__':
    unittest.main()
