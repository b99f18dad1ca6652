#!/usr/bin/env python3
"""Checks that every relative link in the project's Markdown resolves.

    python3 scripts/check-links.py            # README.md, ARCHITECTURE.md and docs/*.md
    python3 scripts/check-links.py FILE.md…   # only these files

For each inline link or image (`[text](target)`, `![alt](target)`), reference definition (`[id]: target`) and
HTML `href`/`src` outside code, the target is resolved relative to the file's directory and must exist.
`http:`, `https:`, `mailto:` and other URL schemes are not checked. A `#fragment` into a Markdown file (the
same file for a bare `#fragment`) must name one of its headings, by GitHub's rules: the heading's text,
lower-cased, with everything but letters, digits, `_`, `-` and spaces dropped, spaces turned into `-`, and
`-1`, `-2`, … added to repeats; explicit `id="…"` and `<a name="…">` anchors count too.

Prints each broken link as `file:line: target: why` and exits 1 if there is one. Python 3 standard library only.
"""

import re
import sys
import unicodedata
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILES = ["README.md", "ARCHITECTURE.md", "docs/*.md"]

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
# Link text may hold one level of brackets ("[`[ours]`](x)"); the target one level of parentheses.
INLINE = re.compile(
    r"!?\[(?:[^\[\]\\]|\\.|\[[^\[\]]*\])*\]"
    r"\(\s*(<[^<>\n]*>|(?:[^\s()\\]|\\.|\([^\s()]*\))*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)"
)
REFDEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^<>\n]*>|\S+)")
HTML_ATTR = re.compile(r"""<[a-zA-Z][^>]*?\s(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
HTML_ID = re.compile(r"""<[a-zA-Z][^>]*?\s(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def fence_free_lines(text):
    """The file's lines with fenced code blocks blanked (line numbers kept)."""
    out = []
    fence = None
    for line in text.split("\n"):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                out.append("")
            else:
                out.append(line)
            continue
        # A closing fence: the same character, at least as long, nothing after it.
        if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line[m.end():].strip():
            fence = None
        out.append("")
    return out


def code_free_lines(text):
    """The file's lines with fenced code blocks blanked and inline code spans removed (line numbers kept)."""
    return [strip_code_spans(line) for line in fence_free_lines(text)]


def strip_code_spans(line):
    """Removes `code` spans (any run of backticks, closed by the same run)."""
    out, i = [], 0
    while i < len(line):
        if line[i] == "`":
            j = i
            while j < len(line) and line[j] == "`":
                j += 1
            ticks = line[i:j]
            end = line.find(ticks, j)
            while end != -1 and (line[end + len(ticks): end + len(ticks) + 1] == "`" or line[end - 1] == "`"):
                end = line.find(ticks, end + len(ticks))
            if end == -1:
                out.append(ticks)
                i = j
            else:
                i = end + len(ticks)
        else:
            out.append(line[i])
            i += 1
    return "".join(out)


def heading_text(raw):
    """A heading's text as GitHub renders it: code spans keep their text, links their text, no markup."""
    t = re.sub(r"`+([^`]*?)`+", r"\1", raw)
    t = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", t)
    t = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", t)
    t = re.sub(r"<[^>]+>", "", t)
    t = re.sub(r"(?<![\w])_+|_+(?![\w])", "", t)  # _emphasis_, not snake_case
    return t.strip()


def slug(text):
    """GitHub's heading anchor: lower case; letters, marks, digits, `_`, `-` and spaces kept; spaces to `-`."""
    kept = []
    for ch in text.lower():
        cat = unicodedata.category(ch)
        if cat[0] in "LMN" or cat == "Pc" or ch in " -":
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


_anchor_cache = {}


def anchors(path):
    """The anchors a Markdown file defines: its headings' slugs (repeats numbered) and explicit ids."""
    if path in _anchor_cache:
        return _anchor_cache[path]
    text = path.read_text(encoding="utf-8")
    lines = fence_free_lines(text)
    found, seen = set(), {}

    def add(s):
        n = seen.get(s, 0)
        found.add(s if n == 0 else f"{s}-{n}")
        seen[s] = n + 1

    for i, line in enumerate(lines):
        m = ATX.match(line)
        if m:
            add(slug(heading_text(m.group(2) or "")))
        elif (
            i > 0
            and SETEXT.match(line)
            and lines[i - 1].strip()
            and not ATX.match(lines[i - 1])
            and not lines[i - 1].lstrip().startswith(("-", "*", ">", "|"))
        ):
            add(slug(heading_text(lines[i - 1])))
        for m in HTML_ID.finditer(strip_code_spans(line)):
            found.add(m.group(1) if m.group(1) is not None else m.group(2))
    _anchor_cache[path] = found
    return found


def targets(lines):
    """(line number, target) for every link, image, reference definition and HTML href/src."""
    for n, line in enumerate(lines, 1):
        for m in INLINE.finditer(line):
            yield n, m.group(1)
        m = REFDEF.match(line)
        if m:
            yield n, m.group(1)
        for m in HTML_ATTR.finditer(line):
            yield n, m.group(1) if m.group(1) is not None else m.group(2)


def check(md):
    """The broken links of one file, as messages."""
    problems = []
    rel = md.relative_to(ROOT)
    for n, target in targets(code_free_lines(md.read_text(encoding="utf-8"))):
        t = target.strip()
        if t.startswith("<") and t.endswith(">"):
            t = t[1:-1]
        t = re.sub(r"\\(.)", r"\1", t)
        if not t or SCHEME.match(t) or t.startswith("//"):
            continue
        path_part, _, fragment = t.partition("#")
        path_part = unquote(path_part.split("?", 1)[0])
        if path_part:
            if path_part.startswith("/"):
                dest = (ROOT / path_part.lstrip("/")).resolve()
            else:
                dest = (md.parent / path_part).resolve()
            if not dest.exists():
                problems.append(f"{rel}:{n}: {target}: no such file or folder")
                continue
            if ROOT not in dest.parents and dest != ROOT:
                problems.append(f"{rel}:{n}: {target}: outside the repository")
                continue
        else:
            dest = md
        if fragment and dest.is_file() and dest.suffix.lower() in (".md", ".markdown"):
            if unquote(fragment) not in anchors(dest):
                where = "this file" if dest == md else dest.relative_to(ROOT)
                problems.append(f"{rel}:{n}: {target}: no heading or anchor #{unquote(fragment)} in {where}")
    return problems


def main(argv):
    names = argv[1:] or DEFAULT_FILES
    files = []
    for name in names:
        matched = sorted(ROOT.glob(name)) if any(c in name for c in "*?[") else [ROOT / name]
        if not matched:
            print(f"check-links: nothing matches {name}", file=sys.stderr)
            return 2
        files.extend(p.resolve() for p in matched)
    missing = [f for f in files if not f.is_file()]
    if missing:
        for f in missing:
            print(f"check-links: no such file: {f}", file=sys.stderr)
        return 2
    problems, count = [], 0
    for md in files:
        count += sum(1 for _ in targets(code_free_lines(md.read_text(encoding="utf-8"))))
        problems.extend(check(md))
    for p in problems:
        print(p)
    if problems:
        print(f"links: {len(problems)} broken of {count} in {len(files)} files")
        return 1
    print(f"links: {count} in {len(files)} files, all resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
