#!/usr/bin/env python3
"""hook/'s folders against the rule HACKING.md writes down (tests/integration/test_architecture.sh).

  architecture.py TOP includes        every #include "..." of hook/ resolves to a file of hook/, and a
                                      folder includes only itself and the folders before it (ORDER);
                                      cli, runtime and viewhook never each other, init only shared
  architecture.py TOP names           no two .c files of hook/ share a name (each program's main.c
                                      aside); no folder holds more than MAX_FILES .c files
  architecture.py TOP circles BUILD   from the objects in BUILD/hook (nm): no two files, and no two
                                      folders, each use what the other defines (a strongly connected
                                      component of more than one is a circle, named with its uses)

Prints what breaks the rule, one a line; exit status 1 when anything does.
"""
import os
import re
import subprocess
import sys

# A folder uses only the folders before it. The programs come last: cli, runtime and viewhook take
# any folder of the library but never each other (runtime and viewhook are linked with musl, from
# the library's musl build: SConscript's MUSL_FOLDERS); the init is a program of its own that links
# shared.
ORDER = ['shared', 'util', 'facts', 'translate', 'record', 'plan', 'agent', 'status', 'lockdown', 'node', 'frontend']
PROGRAMS = {'cli': ORDER, 'runtime': ORDER, 'viewhook': ORDER, 'init': ['shared']}
MAX_FILES = 25
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folders(top):
    hook = os.path.join(top, 'hook')
    return sorted(d for d in os.listdir(hook) if os.path.isdir(os.path.join(hook, d)))


def allowed(folder):
    if folder in PROGRAMS:
        return set(PROGRAMS[folder]) | {folder}
    return set(ORDER[:ORDER.index(folder) + 1])


def sources(top, folder, exts=('.c', '.h')):
    d = os.path.join(top, 'hook', folder)
    return sorted(f for f in os.listdir(d) if f.endswith(exts))


def includes(top):
    found = []
    for folder in folders(top):
        if folder not in ORDER and folder not in PROGRAMS:
            found.append('hook/%s/: a folder the rule does not place (tests/tools/architecture.py ORDER)' % folder)
            continue
        ok = allowed(folder)
        for f in sources(top, folder):
            path = os.path.join(top, 'hook', folder, f)
            with open(path, encoding='utf-8') as fh:
                text = fh.read()
            for name in INCLUDE.findall(text):
                target = name.split('/')[0] if '/' in name else folder
                where = os.path.join(top, 'hook', name) if '/' in name else os.path.join(top, 'hook', folder, name)
                if not os.path.isfile(where):
                    found.append('hook/%s/%s: includes "%s", which is no file of hook/' % (folder, f, name))
                elif target not in ok:
                    found.append('hook/%s/%s: includes "%s": %s may use only %s' %
                                 (folder, f, name, folder, ', '.join(o for o in ORDER + list(PROGRAMS) if o in ok)))
    return found


def names(top):
    found, seen = [], {}
    for folder in folders(top):
        cs = sources(top, folder, ('.c',))
        if len(cs) > MAX_FILES:
            found.append('hook/%s/: %d .c files, more than %d' % (folder, len(cs), MAX_FILES))
        for f in cs:
            if f == 'main.c':
                continue
            if f in seen:
                found.append('hook/%s/%s and hook/%s/%s: one name for two files' % (seen[f], f, folder, f))
            seen[f] = folder
    return found


def symbols(obj):
    out = subprocess.run(['nm', obj], stdout=subprocess.PIPE, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in 'TDBRCV':
            defined.add(p[2])
        elif len(p) == 2 and p[0] == 'U':
            used.add(p[1])
    return defined, used


def objects(top, build):
    """hook/<folder>/<name>.o of every source of hook/: the init's musl and shared copies aside."""
    objs = {}
    for folder in folders(top):
        for f in sources(top, folder, ('.c',)):
            o = os.path.join(build, 'hook', folder, f[:-2] + '.o')
            if os.path.exists(o):
                objs['%s/%s' % (folder, f[:-2])] = o
    return objs


def components(graph):
    """Strongly connected components of more than one node (Tarjan, without recursion)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def circles(top, build):
    objs = objects(top, build)
    if len(objs) < 10:
        return ['%s/hook: no objects to read (build first)' % build]
    defs, uses = {}, {}
    for name, o in objs.items():
        d, u = symbols(o)
        uses[name] = u
        for s in d:
            defs.setdefault(s, set()).add(name)
    # The init is its own program: its files and the host's are never linked together, except shared.
    graph, why = {n: set() for n in objs}, {}
    for a in objs:
        for s in uses[a]:
            for b in defs.get(s, ()):
                if b != a:
                    graph[a].add(b)
                    why.setdefault((a, b), s)
    found = []
    for comp in components(graph):
        inside = ['%s uses %s (%s)' % (a, b, why[(a, b)]) for a in comp for b in sorted(graph[a]) if b in comp]
        found.append('a circle of files: %s' % '; '.join(inside))
    fgraph, fwhy = {}, {}
    for (a, b), s in why.items():
        fa, fb = a.split('/')[0], b.split('/')[0]
        if fa != fb:
            fgraph.setdefault(fa, set()).add(fb)
            fgraph.setdefault(fb, set())
            fwhy.setdefault((fa, fb), '%s uses %s (%s)' % (a, b, s))
    for comp in components(fgraph):
        inside = [fwhy[(a, b)] for a in comp for b in sorted(fgraph[a]) if b in comp]
        found.append('a circle of folders %s: %s' % (', '.join(comp), '; '.join(inside)))
    # What the objects use, against the rule the includes are held to (a declaration spelt by hand
    # instead of included would pass the include check).
    for (a, b), s in sorted(why.items()):
        fa, fb = a.split('/')[0], b.split('/')[0]
        if fa in allowed(fa) and fb not in allowed(fa):
            found.append('%s uses %s of %s: %s may use only %s' % (a, s, b, fa, ', '.join(sorted(allowed(fa)))))
    return found


def main():
    top, what = sys.argv[1], sys.argv[2]
    if what == 'circles':
        found = circles(top, sys.argv[3])
    else:
        found = {'includes': includes, 'names': names}[what](top)
    for f in found:
        print(f)
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
