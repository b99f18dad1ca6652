#!/usr/bin/env python3
"""The import circles of the app's modules: which files of src/app import each other, round and back.

Reads the `use` lines of src/app/**/*.rs (outside `#[cfg(test)]` modules): `use super::…`,
`use super::super::…`, `use crate::app::…`, `use self::…`, and `use child::…` of a module the file declares.
A file's module is its path (`src/app/timeline/charts.rs` is `timeline::charts`; a `mod.rs` is its folder,
`src/app/mod.rs` the app itself). An imported name is followed through the `pub use` that re-exports it
(`super::Command` is `command`, which `app/mod.rs` re-exports), so an edge points at the file that defines
what is used. Prints each strongly connected component of more than one module (Tarjan), largest first,
with the edges inside it, and the count.

    python3 scripts/app-import-cycles.py [REPO] [--all-paths] [--no-reexports] [--names] [--without A->B]...

REPO defaults to the current directory. --all-paths also counts paths written in code
(`super::timeline::Simulation::running`), not only `use` lines; --names says which imported names make each
edge; --without leaves an edge out (`app` is
src/app/mod.rs), to see what a planned move would leave. Standard library only.
"""

import argparse
import os
import re
import signal
import sys

TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*(?:#!?\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{")
USE = re.compile(r"(?<![\w:])(pub(?:\s*\([^)]*\))?\s+)?use\s+([^;]+);")
CODE_PATH = re.compile(r"(?<![\w:])((?:super::)+|crate::app::|self::)([A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)")


def strip(text):
    """The text without comments, string literals and `#[cfg(test)]` modules."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    text = re.sub(r"'(?:\\.|[^'\\])'", "' '", text)
    text = re.sub(r"//[^\n]*", "", text)
    out = []
    pos = 0
    for m in TEST_MOD.finditer(text):
        if m.start() < pos:
            continue
        out.append(text[pos : m.start()])
        depth = 1
        i = m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        pos = i
    out.append(text[pos:])
    return "".join(out)


def expand(tree):
    """`a::{b, c::{d, e}}` as the paths [a::b, a::c::d, a::c::e] (each a list of segments); `x as y` is x."""
    tree = re.sub(r"\s+as\s+\w+", "", tree)
    tree = re.sub(r"\s+", "", tree)

    def parse(s, i):
        # A path prefix, then maybe a {group}; returns (paths, next index).
        prefix = []
        word = ""
        while i < len(s):
            if s.startswith("::", i):
                prefix.append(word)
                word = ""
                i += 2
            elif s[i] == "{":
                paths = []
                i += 1
                while i < len(s) and s[i] != "}":
                    sub, i = parse(s, i)
                    paths.extend(prefix + p for p in sub)
                    if i < len(s) and s[i] == ",":
                        i += 1
                return paths, i + 1
            elif s[i] in ",}":
                break
            else:
                word += s[i]
                i += 1
        return [prefix + [word]], i

    return parse(tree, 0)[0]


def module_of(app, path):
    rel = os.path.relpath(path, app)[: -len(".rs")].split(os.sep)
    if rel[-1] == "mod":
        rel = rel[:-1]
    return tuple(rel)


def name(module):
    return "::".join(module) if module else "app (mod.rs)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", nargs="?", default=".")
    ap.add_argument("--all-paths", action="store_true", help="also count paths written in code")
    ap.add_argument("--no-reexports", action="store_true", help="stop at the module a name is imported from")
    ap.add_argument("--names", action="store_true", help="say which imported names make each edge of a circle")
    ap.add_argument(
        "--without",
        action="append",
        default=[],
        metavar="A->B",
        help="leave an edge out (to see what a planned move would leave), e.g. 'error->dialogs'; repeatable",
    )
    args = ap.parse_args()
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    app = os.path.join(args.repo, "src", "app")
    if not os.path.isdir(app):
        sys.exit(f"no src/app in {args.repo}")

    texts = {}
    for root, _, files in os.walk(app):
        for f in sorted(files):
            if f.endswith(".rs"):
                p = os.path.join(root, f)
                with open(p, encoding="utf-8") as fh:
                    texts[module_of(app, p)] = strip(fh.read())
    modules = set(texts)

    def paths_of(text):
        for m in USE.finditer(text):
            for p in expand(m.group(2)):
                yield bool(m.group(1)), p

    def absolute(module, segs):
        """The path from the app's root, or None when it is outside the app."""
        if not segs:
            return None
        cur = list(module)
        i = 0
        if segs[0] == "crate":
            if len(segs) < 2 or segs[1] != "app":
                return None
            return tuple(segs[2:])
        if segs[0] == "self":
            i = 1
        elif segs[0] == "super":
            while i < len(segs) and segs[i] == "super":
                if not cur:
                    return None
                cur.pop()
                i += 1
        elif tuple(cur + [segs[0]]) not in modules:
            return None
        return tuple(cur) + tuple(segs[i:])

    # Each module's `pub use` re-exports: name -> absolute path of what it names.
    reexports = {m: {} for m in modules}
    for m, text in texts.items():
        for public, segs in paths_of(text):
            full = absolute(m, segs)
            if public and full is not None and segs[-1] not in ("*", "self"):
                reexports[m][segs[-1]] = full

    def target(full, seen=()):
        """The module that defines what `full` names (following re-exports)."""
        k = len(full)
        while k >= 0 and full[:k] not in modules:
            k -= 1
        if k < 0:
            return None
        mod, rest = full[:k], full[k:]
        if rest and not args.no_reexports and rest[0] in reexports.get(mod, {}) and (mod, rest[0]) not in seen:
            via = reexports[mod][rest[0]]
            return target(via + rest[1:], seen + ((mod, rest[0]),))
        return mod

    edges = {m: set() for m in modules}
    why = {}
    for m, text in texts.items():
        found = [segs for public, segs in paths_of(text)]
        if args.all_paths:
            body = USE.sub(" ", text)
            for cm in CODE_PATH.finditer(body):
                head = cm.group(1)
                segs = head.rstrip(":").split("::") + cm.group(2).split("::")
                found.append([s for s in segs if s])
        for segs in found:
            full = absolute(m, segs)
            if full is None:
                continue
            t = target(full)
            if t is not None and t != m:
                edges[m].add(t)
                why.setdefault((m, t), set()).add("::".join(segs))

    for cut in args.without:
        a, _, b = cut.partition("->")
        key = lambda n: () if n.strip() in ("app", "") else tuple(n.strip().split("::"))
        if key(b) not in edges.get(key(a), set()):
            sys.exit(f"--without {cut}: there is no such edge")
        edges[key(a)].discard(key(b))

    # Tarjan's strongly connected components.
    index = {}
    low = {}
    stack = []
    on = set()
    comps = []
    counter = [0]
    sys.setrecursionlimit(10_000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(comp)

    for v in sorted(modules):
        if v not in index:
            visit(v)

    circles = sorted((c for c in comps if len(c) > 1), key=lambda c: (-len(c), sorted(c)))
    mode = "use lines" + (" and paths in code" if args.all_paths else "")
    mode += "" if args.no_reexports else ", re-exports followed"
    print(f"{len(modules)} modules in {app} ({mode}); {len(circles)} import circle(s)")
    for c in circles:
        members = sorted(c)
        print(f"\n{len(c)} modules: {', '.join(name(m) for m in members)}")
        for m in members:
            inside = sorted(t for t in edges[m] if t in c)
            if args.names:
                for t in inside:
                    print(f"  {name(m)} -> {name(t)}: {', '.join(sorted(why[(m, t)]))}")
            else:
                print(f"  {name(m)} -> {', '.join(name(t) for t in inside)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
