#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hot-unplug and replug guest disks through QEMU's QMP socket.

The guest test that removes a disk under I/O asks for it by printing
"iosched-hotplug: unplug SLOT" (later "replug SLOT") to the kernel log.
This relay follows the guest console and answers the way an operator
would on QEMU's monitor: device_del for an unplug; for a replug, once
QEMU reports the device deleted, device_add with the disk's original
options (and drive_add first if the drive went away with the device).
Every request and its outcome is logged on stdout. The relay ends when
QEMU closes the QMP socket.

usage: hotplug-relay.py CONSOLE QMP-SOCKET [SLOT DRIVE-OPTS DEVICE-OPTS]...
"""

import json
import re
import select
import socket
import sys
import time

REQUEST = re.compile(rb"iosched-hotplug: (unplug|replug) ([0-9a-f]{2}\.[0-7])")
CONNECT_SECONDS = 60
DELETE_SECONDS = 120


def log(msg):
    print(time.strftime("%H:%M:%S"), msg, flush=True)


class Qmp:
    """A QMP connection: commands one at a time, events kept aside."""

    def __init__(self, path):
        deadline = time.monotonic() + CONNECT_SECONDS
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise SystemExit(f"no QMP socket at {path}")
                time.sleep(0.2)
        self.buf = b""
        self.deleted = set()
        self.read_message()  # the greeting
        self.command("qmp_capabilities")

    def fileno(self):
        return self.sock.fileno()

    def read_message(self):
        """The next message; None once QEMU has closed the socket."""
        while b"\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                return None
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        msg = json.loads(line)
        if msg.get("event") == "DEVICE_DELETED":
            self.deleted.add(msg["data"].get("device"))
        return msg

    def pending(self):
        return b"\n" in self.buf

    def poll(self, seconds=0.2):
        """Take in what QEMU sent within @seconds; False once it has gone."""
        if self.pending() or select.select([self], [], [], seconds)[0]:
            return self.read_message() is not None
        return True

    def command(self, name, **args):
        self.sock.sendall(json.dumps({"execute": name, "arguments": args}).encode() + b"\n")
        while True:
            msg = self.read_message()
            if msg is None:
                raise SystemExit("QEMU closed the QMP socket")
            if "return" in msg:
                return msg["return"]
            if "error" in msg:
                raise RuntimeError(msg["error"]["desc"])

    def hmp(self, line):
        """A human-monitor command; fails on any output but "OK"."""
        out = self.command("human-monitor-command", **{"command-line": line}).strip()
        if out not in ("", "OK"):
            raise RuntimeError(out)

    def has_drive(self, drive_id):
        return any(b.get("device") == drive_id for b in self.command("query-block"))

    def wait_deleted(self, dev_id):
        deadline = time.monotonic() + DELETE_SECONDS
        while dev_id not in self.deleted:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{dev_id} not deleted after {DELETE_SECONDS}s")
            if not self.poll():
                raise SystemExit("QEMU closed the QMP socket")


def option(opts, name):
    found = re.search(rf"(?:^|,){name}=([^,]+)", opts)
    return found.group(1) if found else None


def serve(qmp, slot, action, disks):
    if slot not in disks:
        raise RuntimeError(f"no hot-pluggable disk at slot {slot}")
    drive, device = disks[slot]
    dev_id = option(device, "id")
    if action == "unplug":
        qmp.deleted.discard(dev_id)
        qmp.command("device_del", id=dev_id)
        return
    qmp.wait_deleted(dev_id)
    # QEMU 7.2 keeps an if=none drive after its device; others may not.
    if not qmp.has_drive(option(drive, "id")):
        qmp.hmp(f"drive_add 0 {drive}")
    qmp.hmp(f"device_add {device}")


def main(argv):
    if len(argv) < 3 or (len(argv) - 3) % 3:
        raise SystemExit(__doc__.strip().splitlines()[-1])
    console, qmp_path = argv[1], argv[2]
    disks = {}
    for i in range(3, len(argv), 3):
        if option(argv[i + 2], "id"):
            disks[argv[i]] = (argv[i + 1], argv[i + 2])
    qmp = Qmp(qmp_path)
    partial = b""
    with open(console, "rb") as con:
        while True:
            if not qmp.poll():
                return
            # Whole lines only: a request may arrive in two pieces.
            *lines, partial = (partial + con.read()).split(b"\n")
            for found in map(REQUEST.search, lines):
                if not found:
                    continue
                action, slot = found.group(1).decode(), found.group(2).decode()
                try:
                    serve(qmp, slot, action, disks)
                    log(f"{action} {slot}: done")
                except RuntimeError as err:
                    log(f"{action} {slot}: failed: {err}")


if __name__ == "__main__":
    main(sys.argv)
