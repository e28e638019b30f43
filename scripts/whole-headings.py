#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Give the hunk headings of quilt patches the whole function line.

GNU diff's --show-c-function cuts the line it quotes after a hunk's @@ at
40 columns; checkpatch then reads a cut word ("readah") as a misspelling,
and a reader loses the rest of the signature.  git writes the whole line.
After "quilt refresh", run this on the refreshed patches: each heading is
looked up in the file as the patches before it leave it, quilt's backup
in TREE/.pc/PATCH/, so the patch must be applied.

usage: scripts/whole-headings.py TREE PATCH...
"""
import os
import re
import sys

HUNK = re.compile(r'^(@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@ )(.+)$')


def whole_line(cut, old_lines, start):
    """The line of @old_lines at or before line @start (1-based, the
    hunk's first) that GNU diff cut to @cut, or @cut if none is."""
    for line in reversed(old_lines[:start]):
        if line.startswith(cut):
            return line.rstrip()
    return cut


def rewrite(text, backups):
    """@text, a patch, with whole headings; @backups is the directory of
    the files as they were before it."""
    out, old_lines = [], None
    for line in text.split('\n'):
        if line.startswith('--- a/'):
            path = os.path.join(backups, line[len('--- a/'):])
            old_lines = None
            if os.path.isfile(path):
                with open(path, encoding='utf-8', errors='replace') as f:
                    old_lines = f.read().split('\n')
        m = HUNK.match(line)
        if m and old_lines is not None:
            line = m.group(1) + whole_line(m.group(3), old_lines,
                                           int(m.group(2)))
        out.append(line)
    return '\n'.join(out)


def main(argv):
    if len(argv) < 3:
        sys.exit('usage: scripts/whole-headings.py TREE PATCH...')
    tree = argv[1]
    for patch in argv[2:]:
        name = os.path.basename(patch)
        backups = os.path.join(tree, '.pc', name)
        if not os.path.isfile(patch):
            sys.exit(f'whole-headings: no patch {patch}')
        if not os.path.isdir(backups):
            sys.exit(f'whole-headings: {name} is not applied in {tree} '
                     '(no .pc backup)')
        with open(patch, encoding='utf-8') as f:
            text = f.read()
        new = rewrite(text, backups)
        if new != text:
            with open(patch, 'w', encoding='utf-8') as f:
                f.write(new)


if __name__ == '__main__':
    main(sys.argv)
