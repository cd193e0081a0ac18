#!/usr/bin/env python3
"""What HACKING.md names against the tree (tests/integration/test_hacking.sh).

  hacking_names.py TOP layout   every folder of hook/ has its entry (`hook/NAME/`) in "## Layout",
                                and every .c and .h of the folder is named in it (cmd_X.c as X;
                                *_internal.h are a module's own)
  hacking_names.py TOP files    every file name HACKING.md mentions (x.c, dir/x.sh, ...) exists
                                somewhere in the tree

Prints what is missing, one a line; exit status 1 when anything is.
"""
import os
import re
import sys


def layout(top, text):
    block = text.split('## Layout', 1)[1].split('```')[1]
    entries, cur = {}, None
    for line in block.splitlines():
        if line and not line[0].isspace():
            cur = line.split()[0]
            entries[cur] = line[len(cur):]
        elif cur:
            entries[cur] += ' ' + line
    missing = []
    hook = os.path.join(top, 'hook')
    for d in sorted(d for d in os.listdir(hook) if os.path.isdir(os.path.join(hook, d))):
        if 'hook/%s/' % d not in entries:
            missing.append('hook/%s/: no entry in the Layout' % d)
            continue
        words = set(re.findall(r'[A-Za-z0-9_]+', entries['hook/%s/' % d]))
        for f in sorted(os.listdir(os.path.join(hook, d))):
            stem, ext = os.path.splitext(f)
            if ext not in ('.c', '.h') or stem.endswith('_internal'):
                continue
            if stem not in words and not (stem.startswith('cmd_') and stem[4:] in words):
                missing.append('hook/%s/%s: not in the Layout' % (d, f))
    return missing


def files(top, text):
    names = set()
    for root, dirs, fs in os.walk(top):
        dirs[:] = [d for d in dirs if d not in ('.git', 'build')]
        for f in fs:
            names.add(f)
            names.add(os.path.relpath(os.path.join(root, f), top))
    missing = []
    for m in sorted(set(re.findall(r'[A-Za-z0-9_./-]+\.(?:c|h|sh|py|scd|json\.in|md)\b', text))):
        if m in names or os.path.basename(m) in names or m.endswith('config.json'):
            continue
        missing.append('%s: named in HACKING.md, in no file of the tree' % m)
    return missing


def main():
    top, what = sys.argv[1], sys.argv[2]
    with open(os.path.join(top, 'HACKING.md')) as f:
        text = f.read()
    missing = {'layout': layout, 'files': files}[what](top, text)
    for m in missing:
        print(m)
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
