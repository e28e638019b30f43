# SPDX-License-Identifier: GPL-2.0
"""scripts/splats.sh fails a run on the kernel reports of its console
logs: an oops, and an initramfs the guest could not unpack (a guest too
small for what it was given runs without some of its files); a clean
console passes."""
import os
import subprocess
import tempfile
import unittest

SPLATS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                      'splats.sh')
CLEAN = '[    1.0] Run /init as init process\nbench: [1/2] seed002-seq16k\n'


def splats(console):
    """splats.sh's exit status and stderr for a log holding @console."""
    with tempfile.NamedTemporaryFile('w', suffix='.console') as log:
        log.write(console)
        log.flush()
        done = subprocess.run(['bash', SPLATS, log.name], text=True,
                              capture_output=True, check=False)
    return done.returncode, done.stderr


class Splats(unittest.TestCase):
    def test_clean_console_passes(self):
        self.assertEqual(splats(CLEAN), (0, ''))

    def test_initramfs_unpacking_failure_fails(self):
        status, report = splats(
            '[    1.8] Initramfs unpacking failed: write error\n' + CLEAN)
        self.assertEqual(status, 1)
        self.assertIn('Initramfs unpacking failed', report)

    def test_oops_fails(self):
        status, _ = splats(CLEAN + '[  248.2] Oops: double fault: 0000\n')
        self.assertEqual(status, 1)


if __name__ == '__main__':
    unittest.main()
