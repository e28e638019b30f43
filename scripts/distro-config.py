#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the guest kernel's configuration with Debian's, as TAP.

Usage: distro-config.py TREE GUEST_CONFIG DEBIAN_CONFIG CHECK_FILE

The symbols compared are those CHECK_FILE (configs/distro-check) names:
every prompted symbol of its "kconfig" files and its "symbol" lines.  A
symbol whose value differs is a failure unless a "differs" line gives the
reason; a "differs" line for a symbol that no longer differs is a failure
too, so that the list of reasons stays true.
"""
import os
import re
import sys

CONFIG_LINE = re.compile(r'^(CONFIG_\w+)=(.*)$')
UNSET_LINE = re.compile(r'^# (CONFIG_\w+) is not set$')
KCONFIG_ENTRY = re.compile(r'^\s*(?:menu)?config\s+(\w+)\s*$')
# A type with a prompt string ("bool "Foo"") or a "prompt" line.
KCONFIG_PROMPT = re.compile(
    r'^\s*(?:(?:bool|tristate|int|hex|string)\s+"|prompt\s+")')
KCONFIG_END = re.compile(r'^\s*(?:(?:menu)?config|choice|endchoice|menu|'
                         r'endmenu|if|endif|source|comment)\b')


class CheckError(Exception):
    pass


def read_config(path):
    """{symbol: value} of a .config; unset symbols read as "n"."""
    values = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.rstrip('\n')
            m = CONFIG_LINE.match(line)
            if m:
                values[m.group(1)[7:]] = m.group(2)
                continue
            m = UNSET_LINE.match(line)
            if m:
                values[m.group(1)[7:]] = 'n'
    return values


def prompted_symbols(path):
    """Symbols declared in Kconfig file @path that a user can set."""
    found = []
    current = None
    with open(path, encoding='utf-8') as f:
        for line in f:
            m = KCONFIG_ENTRY.match(line)
            if m:
                current = m.group(1)
                continue
            if current and KCONFIG_END.match(line):
                current = None
            elif current and KCONFIG_PROMPT.match(line):
                found.append(current)
                current = None
    return found


def read_check(path, tree):
    """The symbols to compare, in order, and {symbol: reason}."""
    symbols, reasons = [], {}
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            words = line.split(None, 2)
            if not words or words[0].startswith('#'):
                continue
            where = f'{path}:{number}'
            if words[0] == 'kconfig' and len(words) == 2:
                kconfig = os.path.join(tree, words[1])
                if not os.path.isfile(kconfig):
                    raise CheckError(f'{where}: no Kconfig file {words[1]}')
                symbols += prompted_symbols(kconfig)
            elif words[0] == 'symbol' and len(words) == 2:
                symbols.append(words[1])
            elif words[0] == 'differs' and len(words) == 3:
                reasons[words[1]] = words[2].strip()
            else:
                raise CheckError(f'{where}: expected "kconfig PATH", '
                                 f'"symbol NAME" or "differs NAME REASON"')
    return list(dict.fromkeys(symbols)), reasons


def as_built(value):
    """A module in Debian's kernel is built in here: no modules."""
    return 'y' if value == 'm' else value


def compare(symbols, reasons, guest, debian):
    """TAP lines and the number of failures."""
    lines, failed, same = [], 0, 0
    for sym in symbols + sorted(set(reasons) - set(symbols)):
        if sym not in debian and sym in symbols:
            continue        # the series' own, or not on amd64
        ours = guest.get(sym, 'n')
        theirs = as_built(debian.get(sym, 'n'))
        differs = ours != theirs
        if not differs and sym not in reasons:
            same += 1
            continue
        if differs and sym in reasons:
            lines.append(f'ok CONFIG_{sym} is {ours} here, {theirs} in '
                         f'Debian: {reasons[sym]}')
        elif differs:
            failed += 1
            lines.append(f'not ok CONFIG_{sym} is {ours} here, {theirs} in '
                         f'Debian, and configs/distro-check gives no reason')
        else:
            failed += 1
            lines.append(f'not ok CONFIG_{sym} is {ours} as in Debian: '
                         f'drop its "differs" line from configs/distro-check')
    lines.append(f'ok {same} more symbols of configs/distro-check are as '
                 f'in Debian')
    return lines, failed


def main(argv):
    if len(argv) != 5:
        print(f'usage: {argv[0]} TREE GUEST_CONFIG DEBIAN_CONFIG CHECK_FILE',
              file=sys.stderr)
        return 2
    tree, guest_path, debian_path, check_path = argv[1:]
    try:
        symbols, reasons = read_check(check_path, tree)
        guest = read_config(guest_path)
        debian = read_config(debian_path)
    except (OSError, CheckError) as e:
        print(f'error: {e}', file=sys.stderr)
        return 2
    lines, failed = compare(symbols, reasons, guest, debian)
    print('TAP version 13')
    for n, line in enumerate(lines, 1):
        status, rest = line.split(' ', 1) if line.startswith('ok') else \
            ('not ok', line[len('not ok '):])
        print(f'{status} {n} {rest}')
    print(f'1..{len(lines)}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
