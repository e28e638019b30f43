#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rebase-mutants.py MUTANT...: rewrite each mutant against today's patches
(run from the top of the repository).

A mutant (mutants/*.patch: its header, a blank line, then a diff of files
of patches/) stops applying when a refresh of the patch it changes moves
the lines around its change, a hunk heading of the patch above all. This
applies each mutant's diff with patch's fuzz to a copy of the files it
changes, and writes the mutant again as the diff from today's files to
the copy, with its header kept. A mutant that does not apply even so is
named, left as it was, and the exit status is 1.
"""
import os
import re
import subprocess
import sys
import tempfile


def split_mutant(text):
    """(header, diff) of a mutant's text."""
    header, sep, diff = text.partition("\n\n")
    if not sep or not diff.startswith("--- "):
        raise ValueError("no blank line before its diff")
    return header, diff


def changed_files(diff):
    """The paths (without a/) the diff changes, in its order."""
    return list(dict.fromkeys(re.findall(r"^--- a/(\S+)", diff, re.M)))


def rebased_diff(diff):
    """The diff, applied with fuzz to copies of its files and taken again
    from today's files; None where it does not apply."""
    with tempfile.TemporaryDirectory() as tmp:
        files = changed_files(diff)
        for path in files:
            os.makedirs(os.path.dirname(os.path.join(tmp, path)),
                        exist_ok=True)
            with open(path, encoding="utf-8") as src, \
                 open(os.path.join(tmp, path), "w", encoding="utf-8") as dst:
                dst.write(src.read())
        done = subprocess.run(["patch", "-p1", "-s", "-F3", "-r", "-",
                               "--no-backup-if-mismatch"], cwd=tmp,
                              input=diff, text=True, capture_output=True)
        if done.returncode:
            return None
        out = ""
        for path in files:
            out += subprocess.run(
                ["diff", "-u", "--label", "a/" + path, "--label",
                 "b/" + path, path,
                 os.path.join(tmp, path)],
                capture_output=True, text=True).stdout
        return out


def main(paths):
    if not paths:
        sys.exit("usage: rebase-mutants.py MUTANT...")
    if not os.path.isfile(os.path.join("patches", "series")):
        sys.exit("rebase-mutants.py: run it from the top of the repository")
    status = 0
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                header, diff = split_mutant(f.read())
        except (OSError, ValueError) as e:
            sys.exit(f"rebase-mutants.py: {path}: {e}")
        new = rebased_diff(diff)
        if not new:
            print(f"{path}: does not apply, left as it was")
            status = 1
            continue
        with open(path, "w", encoding="utf-8") as f:
            f.write(header + "\n\n" + new)
        print(f"{path}: rebased")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
