#!/usr/bin/env python3
"""The code blocks and links of README.md and docs/*.md, for tests/integration/test_docs.sh.

  doc_blocks.py blocks TOP OUTDIR   every ```sh block as OUTDIR/NNN.sh, its place, its expected exit
                                    status and its skip reason as OUTDIR/NNN.{where,exit,skip};
                                    exit 1, one line per problem, for a block the test cannot judge
  doc_blocks.py links TOP           exit 1, one line per relative link or anchor that resolves to
                                    nothing, or per page of docs/ README.md does not link

A shell command block is fenced with the info string `sh`. The line right above it may be one
marker, visible to whoever reads the markdown's source:
  <!-- doc-test: skip: REASON -->   the block cannot run in the test (REASON says why)
  <!-- doc-test: exit N -->         the block runs and must end with status N (0 without a marker)
Every other fenced block names what it holds (text, json, toml, yaml): a block without an info
string, an indented code block, a marker that is not one of those, or a non-sh block that starts
that holds a command are problems, so that no command can escape the test unmarked.
"""
import glob
import os
import re
import sys

MARKER = re.compile(r'^<!-- doc-test: (skip: (?P<reason>\S.*\S)|exit (?P<exit>\d+)) -->$')
# First words that make a line a command: a block starting with one must be ```sh.
COMMANDS = ('oci-seccomp-tsync ', 'oci-seccomp-tsync-runtime ', 'seccomp-tsync-init ', 'runc ', 'crun ',
            'runsc ', 'podman ', 'docker ', 'ctr ', 'crictl ', 'kubectl ', 'scons', 'jq ', 'echo ', 'cat ',
            'mkdir ', 'cp ', 'apt-get ', 'journalctl ', 'systemctl ', 'sysctl ', 'for ', './', 'packaging/build-')


def pages(top):
    return ['README.md'] + sorted(os.path.relpath(p, top) for p in glob.glob(os.path.join(top, 'docs', '*.md')))


def fenced(text):
    """(line, indent, info, body lines, the nearest non-blank line above) of each fenced block; and
    the problems of what lies outside them."""
    lines = text.split('\n')
    blocks, problems = [], []
    i = 0
    prev_blank = True
    above = ''
    while i < len(lines):
        line = lines[i]
        m = re.match(r'^( *)```(.*)$', line)
        if m:
            indent, info = len(m.group(1)), m.group(2).strip()
            body = []
            j = i + 1
            while j < len(lines) and not re.match(r'^ *```\s*$', lines[j]):
                body.append(lines[j][indent:] if lines[j][:indent].strip() == '' else lines[j])
                j += 1
            if j == len(lines):
                problems.append((i + 1, 'a fenced block that never ends'))
            blocks.append((i + 1, indent, info, body, above))
            i = j + 1
            prev_blank = False
            above = ''
            continue
        if line.startswith('    ') and prev_blank and line.strip():
            problems.append((i + 1, 'an indented code block: fence it with an info string (sh, text, json, ...)'))
        if line.startswith('<!-- doc-test') and not MARKER.match(line):
            problems.append((i + 1, 'a doc-test marker that is neither "skip: REASON" nor "exit N": ' + line))
        if line.strip():
            above = line
        prev_blank = not line.strip()
        i += 1
    return blocks, problems


def cmd_blocks(top, outdir):
    bad = []
    n = 0
    for page in pages(top):
        with open(os.path.join(top, page)) as f:
            text = f.read()
        blocks, problems = fenced(text)
        bad += ['%s:%d: %s' % (page, line, what) for line, what in problems]
        for line, indent, info, body, above in blocks:
            marker = MARKER.match(above)
            where = '%s:%d' % (page, line)
            if info == '':
                bad.append('%s: a fenced block without an info string (sh, text, json, ...)' % where)
                continue
            if info != 'sh':
                cmd = next((b for b in body if b.startswith(COMMANDS)), None)
                if cmd:
                    bad.append('%s: a ```%s block holds a command (%s): give it a ```sh block of its own' %
                               (where, info, cmd))
                if marker:
                    bad.append('%s: a doc-test marker above a ```%s block, which is never run' % (where, info))
                continue
            n += 1
            base = os.path.join(outdir, '%03d' % n)
            with open(base + '.sh', 'w') as f:
                f.write('\n'.join(body) + '\n')
            with open(base + '.where', 'w') as f:
                f.write(where + '\n')
            with open(base + '.exit', 'w') as f:
                f.write((marker.group('exit') if marker and marker.group('exit') else '0') + '\n')
            if marker and marker.group('reason'):
                with open(base + '.skip', 'w') as f:
                    f.write(marker.group('reason') + '\n')
    for b in bad:
        print(b)
    return 1 if bad else 0


def slug(heading, seen):
    """GitHub's anchor for a heading: lower case, punctuation but '-' and '_' dropped, blanks to '-';
    a repeated one gets -1, -2, ..."""
    s = re.sub(r'[^\w\- ]', '', heading.strip().lower()).replace(' ', '-')
    if s in seen:
        seen[s] += 1
        return '%s-%d' % (s, seen[s])
    seen[s] = 0
    return s


def anchors(path):
    seen, out = {}, set()
    with open(path) as f:
        text = f.read()
    text = re.sub(r'^ *```.*?^ *```[ \t]*$', '', text, flags=re.M | re.S)
    for m in re.finditer(r'^#{1,6} (.*)$', text, re.M):
        out.add(slug(m.group(1), seen))
    return out


def cmd_links(top):
    bad = []
    n = 0
    for page in pages(top):
        path = os.path.join(top, page)
        with open(path) as f:
            text = f.read()
        text = re.sub(r'^ *```.*?^ *```[ \t]*$', '', text, flags=re.M | re.S)
        text = re.sub(r'`[^`\n]*`', lambda m: '' if '](' not in m.group(0) else m.group(0), text)
        for m in re.finditer(r'\[[^\]]*\]\(([^)\s]+)\)', text):
            target = m.group(1)
            if re.match(r'^[a-z]+:', target):
                continue  # https:, mailto:: not ours to check here
            n += 1
            file, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(dest):
                bad.append('%s: link %s: no file %s' % (page, target, os.path.relpath(dest, top)))
                continue
            if anchor and (not dest.endswith('.md') or anchor not in anchors(dest)):
                bad.append('%s: link %s: %s has no heading with the anchor #%s' %
                           (page, target, os.path.relpath(dest, top), anchor))
    # README.md is the index: every page of docs/ is linked from it.
    with open(os.path.join(top, 'README.md')) as f:
        readme = f.read()
    for page in pages(top)[1:]:
        if not re.search(r'\]\(%s(#[^)]*)?\)' % re.escape(page), readme):
            bad.append('README.md: no link to %s: the index must name every page' % page)
    for b in bad:
        print(b)
    if n < 10:
        print('only %d relative links found: the parser is broken' % n)
        return 1
    return 1 if bad else 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == 'blocks':
        return cmd_blocks(sys.argv[2], sys.argv[3])
    if len(sys.argv) == 3 and sys.argv[1] == 'links':
        return cmd_links(sys.argv[2])
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
