# SPDX-License-Identifier: GPL-2.0
"""The disk model as nbdkit runs it: its worker threads sleep with the
least timer slack, and at exit it writes how late its replies were.

Needs the built plugin in DISKMODEL_PLUGIN (make test sets it), nbdkit
and nbdcopy; without them every test is skipped, and says so."""
import os
import shutil
import subprocess
import tempfile
import time
import unittest

PLUGIN = os.environ.get("DISKMODEL_PLUGIN", "")
MISSING = [what for what, ok in (
    ("DISKMODEL_PLUGIN", os.path.isfile(PLUGIN)),
    ("nbdkit", shutil.which("nbdkit")), ("nbdcopy", shutil.which("nbdcopy")))
    if not ok]


@unittest.skipIf(MISSING, f"needs {', '.join(MISSING)}")
class DiskModelService(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.image = os.path.join(self.dir, "disk.img")
        with open(self.image, "wb") as image:
            image.truncate(8 << 20)
        self.sock = os.path.join(self.dir, "sock")
        self.stats = os.path.join(self.dir, "stats")
        self.pidfile = os.path.join(self.dir, "pid")
        subprocess.run(["nbdkit", "--unix", self.sock, "--pidfile",
                        self.pidfile, PLUGIN, f"file={self.image}",
                        "profile=ssd", f"stats={self.stats}"], check=True)
        self.addCleanup(self.stop)
        self.wait_for_pidfile()

    def wait_for_pidfile(self):
        """nbdkit's parent returns before its daemon has written the
        pidfile: wait for a whole line in it."""
        for _ in range(100):
            try:
                with open(self.pidfile, encoding="utf-8") as f:
                    if f.read().endswith("\n"):
                        return
            except FileNotFoundError:
                pass
            time.sleep(0.1)
        self.fail("nbdkit wrote no pidfile in 10 s")

    def pid(self):
        with open(self.pidfile, encoding="utf-8") as f:
            return int(f.read())

    def stop(self):
        """SIGTERM, then wait for nbdkit to exit (and write its stats)."""
        if not os.path.exists(self.pidfile):
            return
        pid = self.pid()
        os.remove(self.pidfile)
        os.kill(pid, 15)
        for _ in range(100):
            if not os.path.exists(f"/proc/{pid}"):
                return
            time.sleep(0.1)
        self.fail(f"nbdkit {pid} did not exit")

    def read_all(self):
        subprocess.run(["nbdcopy", "--request-size=65536", "--requests=4",
                        "--connections=1", f"nbd+unix:///?socket={self.sock}",
                        "null:"], check=True)

    def test_threads_sleep_with_the_least_timer_slack(self):
        """Threads inherit the slack of the one that starts them: the main
        thread's is what every worker gets."""
        with open(f"/proc/{self.pid()}/timerslack_ns", encoding="utf-8") as f:
            self.assertEqual(int(f.read()), 1)

    def test_replies_are_counted_at_exit(self):
        self.read_all()
        self.stop()
        with open(self.stats, encoding="utf-8") as f:
            stats = dict(line.split() for line in f)
        stats = {key: int(value) for key, value in stats.items()}
        self.assertEqual(set(stats), {"replies", "late", "mean_late_us",
                                      "worst_late_us"})
        self.assertEqual(stats["replies"], (8 << 20) // 65536)
        self.assertLessEqual(stats["late"], stats["replies"])
        self.assertLessEqual(stats["mean_late_us"], stats["worst_late_us"])


if __name__ == "__main__":
    unittest.main()
