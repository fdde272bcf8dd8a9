#!/usr/bin/env python3
"""The README's synopses and the man page's SYNOPSIS say what --help says,
and the README's example outputs are what the commands print.

Usage: readme_synopsis.py BENCHSITE SOURCE_DIR [--update]

For every command, the "usage:" paragraph of `benchsite CMD --help` (its
lines up to the first blank line) must appear, byte for byte, as a fenced
code block of README.md, and the man page benchsite(1), rendered with
groff, must list the same words in its SYNOPSIS. The list of commands is
read from `benchsite --help`, so a new command without a synopsis fails
too. Every code block of the README that begins with `$ benchsite CMD`
(CMD one of the commands that write nothing unless asked: compare, tune,
noise, check) is run from SOURCE_DIR and must print what the block shows
below that line (standard output, then standard error; a line "..."
stands for any lines). The README and the man page name exactly the
harnesses of `benchsite run` (its --help is written from the runner's
table of harnesses): each one, as --NAME; no other --NAME IMPL=COMMAND
or harness,NAME; and every parenthesised list of options that names a
harness names them all, in the table's order. Exit 0 when all agree, 1
with every difference printed; 77 (skipped) when groff is missing and
the README agrees.

--update rewrites README.md instead: each "usage: benchsite CMD" block
from CMD --help, and each `$ benchsite` block without a "..." line from
what the command prints (after a change to --help or to the output,
e.g. a merge); the man page is left to be edited by hand.
"""
import difflib
import os
import re
import shutil
import subprocess
import sys


def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit("%s: exit %d: %s" % (" ".join(argv), p.returncode,
                                      p.stderr.decode(errors="replace")))
    return p.stdout.decode()


def commands(bin_):
    """The commands `benchsite --help` lists, in its order."""
    text = run([bin_, "--help"])
    body = text.split("\ncommands:\n", 1)[1].split("\n\n", 1)[0]
    return [m.group(1) for m in re.finditer(r"^  ([a-z]+) ", body, re.M)]


def usage(bin_, cmd):
    """The usage paragraph of `benchsite CMD --help`, without "usage: "."""
    text = run([bin_, cmd, "--help"])
    if not text.startswith("usage: benchsite %s " % cmd):
        sys.exit("%s --help does not begin with its usage line" % cmd)
    return text.split("\n\n", 1)[0] + "\n"


def harnesses(bin_):
    """The harness options (--NAME IMPL=COMMAND, --cmd aside) of `benchsite
    run --help`'s usage, in its order: the runner's table of harnesses."""
    found = re.findall(r"\| --([a-z0-9-]+) IMPL=COMMAND", usage(bin_, "run"))
    names = [n for n in found if n != "cmd"]
    if not names:
        sys.exit("benchsite run --help names no harness")
    return names


def check_harnesses(names, where, text):
    """The differences between the harnesses `text` (README.md, or the man
    page as groff renders it) names and the table's."""
    failures = 0
    for n in names:
        if "--" + n not in text:
            failures += 1
            print("%s: does not name the harness --%s" % (where, n))
    for m in re.finditer(r"--([a-z0-9-]+) IMPL=COMMAND", text):
        if m.group(1) not in names + ["cmd"]:
            failures += 1
            print("%s: --%s IMPL=COMMAND is not a harness of benchsite run "
                  "(%s)" % (where, m.group(1), ", ".join(names)))
    for m in re.finditer(r"harness,([a-z0-9-]+)", text):
        if m.group(1) not in names:
            failures += 1
            print("%s: harness,%s is not a harness of benchsite run"
                  % (where, m.group(1)))
    lists = re.finditer(r"\(((?:`?--[a-z0-9-]+`?(?:,|,? or)?\s*){2,})\)",
                        text)
    for m in lists:
        opts = re.findall(r"--([a-z0-9-]+)", m.group(1))
        if any(o in names for o in opts) and opts != names:
            failures += 1
            print("%s: (%s) lists the harnesses as %s, benchsite run has %s"
                  % (where, " ".join(m.group(1).split()), ", ".join(opts),
                     ", ".join(names)))
    return failures


def fenced_blocks(markdown):
    """Every fenced code block of a Markdown text, as its text."""
    blocks, cur, fence = [], None, None
    for line in markdown.splitlines(keepends=True):
        m = re.match(r"^(```+|~~~+)", line)
        if cur is None and m:
            cur, fence = [], m.group(1)
        elif cur is not None and line.rstrip("\n") == fence:
            blocks.append("".join(cur))
            cur = None
        elif cur is not None:
            cur.append(line)
    return blocks


READ_ONLY = ("compare", "tune", "noise", "check")


def shown_matches(shown, actual):
    """Whether the lines shown match the lines printed; a line that is
    "..." (blanks around it allowed) matches any run of lines."""
    if not shown:
        return not actual
    if shown[0].strip() == "...":
        return any(shown_matches(shown[1:], actual[i:])
                   for i in range(len(actual) + 1))
    return bool(actual) and shown[0] == actual[0] and \
        shown_matches(shown[1:], actual[1:])


def check_examples(bin_, src, blocks):
    failures = 0
    for b in blocks:
        if not b.startswith("$ benchsite "):
            continue
        first, _, rest = b.partition("\n")
        argv = first[2:].split()
        if argv[1] not in READ_ONLY:
            print("README.md: `%s`: only %s are run here" %
                  (first, ", ".join(READ_ONLY)))
            failures += 1
            continue
        p = subprocess.run([bin_] + argv[1:], cwd=src, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        actual = (p.stdout + p.stderr).decode().splitlines()
        if not shown_matches(rest.splitlines(), actual):
            failures += 1
            print("README.md: `%s` prints something else:" % first[2:])
            sys.stdout.writelines(difflib.unified_diff(
                [l + "\n" for l in rest.splitlines()],
                [l + "\n" for l in actual], "README.md", "printed"))
    return failures


def words(text):
    return text.replace("usage:", " ").split()


def man_text(page):
    """A man page as groff renders it, a paragraph a line."""
    return subprocess.run(
        ["groff", "-man", "-Tutf8", "-rLL=5000n", "-P-cbu", page],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True,
        env=dict(os.environ, LC_ALL="C.UTF-8")).stdout.decode()


def man_synopsis(page):
    """SYNOPSIS of a man page as groff renders it: one entry per command,
    as a list of words (entries begin with "benchsite CMD")."""
    out = man_text(page)
    m = re.search(r"^SYNOPSIS\n(.*?)\n(?=\S)", out, re.S | re.M)
    if not m:
        sys.exit("%s: no SYNOPSIS section" % page)
    return [line.split() for line in m.group(1).splitlines() if line.strip()]


def update(bin_, src):
    path = os.path.join(src, "README.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    usages = {c: usage(bin_, c) for c in commands(bin_)}

    def block(m):
        body = m.group(2)
        first = body.split("\n", 1)[0]
        for cmd, want in usages.items():
            if first.startswith("usage: benchsite %s " % cmd):
                return m.group(1) + want + m.group(3)
        if first.startswith("$ benchsite ") and not any(
                l.strip() == "..." for l in body.splitlines()):
            argv = first[2:].split()
            if argv[1] in READ_ONLY:
                p = subprocess.run([bin_] + argv[1:], cwd=src,
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
                return m.group(1) + first + "\n" + \
                    (p.stdout + p.stderr).decode() + m.group(3)
        return m.group(0)

    text = re.sub(r"^(```\n)(.*?)(^```$)", block, text, flags=re.M | re.S)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


def main():
    bin_, src = os.path.abspath(sys.argv[1]), sys.argv[2]
    if sys.argv[3:] == ["--update"]:
        return update(bin_, src)
    with open(os.path.join(src, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    blocks = fenced_blocks(readme)
    failures = 0
    names = harnesses(bin_)
    failures += check_harnesses(names, "README.md", readme)
    cmds = commands(bin_)
    if len(cmds) < 9:
        sys.exit("benchsite --help lists only %d commands: %s" %
                 (len(cmds), cmds))
    usages = {c: usage(bin_, c) for c in cmds}
    for cmd, want in usages.items():
        if want in blocks:
            continue
        failures += 1
        near = [b for b in blocks if b.startswith("usage: benchsite %s " % cmd)]
        print("README.md: no code block holds `benchsite %s --help`'s usage"
              % cmd)
        for b in near[:1]:
            sys.stdout.writelines(difflib.unified_diff(
                b.splitlines(keepends=True), want.splitlines(keepends=True),
                "README.md", "benchsite %s --help" % cmd))
    failures += check_examples(bin_, src, blocks)
    if shutil.which("groff") is None:
        print("groff is missing: the man page's SYNOPSIS was not checked")
        return 1 if failures else 77
    page = os.path.join(src, "src", "cli", "benchsite.1")
    failures += check_harnesses(names, "benchsite.1", man_text(page))
    entries = man_synopsis(page)
    for cmd, want in usages.items():
        # a command's usage may hold several lines beginning "benchsite CMD"
        # (archive add|verify|list): split it the same way the man page does
        want_entries = []
        for w in words(want):
            if w == "benchsite":
                want_entries.append([])
            want_entries[-1].append(w)
        for we in want_entries:
            if we in entries:
                continue
            failures += 1
            near = [e for e in entries if e[:2] == we[:2]]
            print("benchsite.1: SYNOPSIS differs from `benchsite %s --help`"
                  % cmd)
            print("  --help: " + " ".join(we))
            print("  man:    " + (" ".join(near[0]) if near else "(missing)"))
    if failures:
        print("%d difference(s) between README.md, benchsite.1 and the program" % failures)
        return 1
    print("README.md and benchsite.1 match --help for %d commands and name "
          "its %d harnesses; the README's example outputs are what the "
          "commands print" % (len(usages), len(names)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
