#!/usr/bin/env python3
"""Every Markdown benchsite writes (compare, compare --noise, noise, tune),
rendered with cmark-gfm's table extension as GitHub renders a comment:

- the first line is the command's marker comment;
- it is at most 60 000 characters (and bytes);
- every table parses as a table: each row of the HTML has as many cells
  as the header, and the Markdown's table lines all become rows;
- the headline (counts, worst regression, commits) is the second line
  and the one-line summary on stdout; case tables have at most four
  columns; the cases that matter are the unfolded table, every other case
  is folded or counted as left out;
- the case column shows each name as written (control characters as
  spaces), so no '|', backslash or markup in a name changes the table;
- with --json/--markdown files, stdout holds the one-line summary.

Inputs: the examples, tests/data/report/hostile.csv, seeded random
hostile names (the pieces of the property test in
test_property_hostile.c) and a synthetic 1000-case comparison with long
names, which must fold into <details> and, when every case is flagged,
cut the rest with a line saying how many cases are left out; and 1, 25
and 200 synthetic cases (all equivalent, mixed, hostile names) with
--link-base.

    markdown_gfm.py BENCHSITE SOURCE_DIR OUT_DIR

Exit status 77 (a CTest skip) when cmark-gfm is not installed. Nothing
runs through a shell."""
import csv
import html.parser
import json
import os
import random
import re
import shutil
import subprocess
import sys

SKIP = 77
LIMIT = 60000
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg, file=sys.stderr)


class Tables(html.parser.HTMLParser):
    """Collects every table as a list of rows of (tag, text) cells."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.row, self.cell = [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell = [tag, ""]

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(tuple(self.cell))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.tables[-1].append(self.row)
            self.row = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[1] += data


def render(md):
    r = subprocess.run(["cmark-gfm", "-e", "table"], input=md,
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        fail("cmark-gfm failed: %s" % r.stderr)
    return r.stdout


def check_markdown(tag, path, marker):
    """Checks one Markdown file; returns its tables (header + rows)."""
    with open(path, encoding="utf-8") as f:
        md = f.read()
    if not md.startswith("<!-- benchsite:%s -->\n" % marker):
        fail("%s: first line is not the %s marker: %r" % (tag, marker,
                                                          md[:40]))
    if len(md) > LIMIT or len(md.encode()) > LIMIT:
        fail("%s: %d characters (%d bytes), more than %d" %
             (tag, len(md), len(md.encode()), LIMIT))
    p = Tables()
    p.feed(render(md))
    # Every Markdown line that starts with '|' is a header, delimiter or
    # row of a table: the HTML must have one <tr> per line but the
    # delimiters. A name that broke a row would leave a paragraph instead.
    lines = [ln for ln in md.split("\n") if ln.startswith("|")]
    delims = [ln for ln in lines if re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", ln)]
    ntr = sum(len(t) for t in p.tables)
    if len(delims) != len(p.tables):
        fail("%s: %d delimiter rows but %d tables rendered" %
             (tag, len(delims), len(p.tables)))
    if ntr != len(lines) - len(delims):
        fail("%s: %d table lines but %d rows rendered" %
             (tag, len(lines) - len(delims), ntr))
    for k, t in enumerate(p.tables):
        head = t[0]
        if not head or any(c[0] != "th" for c in head):
            fail("%s: table %d has no header row" % (tag, k))
            continue
        for i, row in enumerate(t[1:]):
            if len(row) != len(head) or any(c[0] != "td" for c in row):
                fail("%s: table %d row %d has %d cells, the header %d: %r" %
                     (tag, k, i, len(row), len(head), row))
    return p.tables, md


def shown(name):
    return re.sub(r"[\x00-\x1f\x7f]", " ", name)


def case_label(c):
    b, d = shown(c["benchmark"]), shown(c["dataset"])
    return (("%s [%s]" % (b, d)) if c["dataset"] else b).strip()


def check_case_cells(tag, table, cases):
    want = sorted(case_label(c) for c in cases)
    got = sorted(row[0][1].strip() for row in table[1:])
    if want != got:
        fail("%s: case cells differ from the names\n  want %r\n  got  %r" %
             (tag, sorted(set(want) - set(got))[:5],
              sorted(set(got) - set(want))[:5]))


def run(binary, args, cwd, want_rc=(0, 1)):
    r = subprocess.run([binary] + args, cwd=cwd, capture_output=True,
                       text=True, timeout=600)
    if r.returncode not in want_rc:
        fail("%s: exit %d: %s" % (" ".join(args[:1]), r.returncode,
                                  r.stderr))
    return r


def check_summary(tag, r, pattern):
    lines = r.stdout.splitlines()
    if len(lines) != 1 or not re.search(pattern, lines[0]):
        fail("%s: stdout is not the one-line summary: %r" % (tag, r.stdout))


# The headline: the counts, in this order, on the comment's second line
# and as the one-line summary on stdout.
HEADLINE = (r"(no|\d+) significant regressions?\b.*\d+ significant "
            r"improvements?, \d+ inconclusive\b.*\d+ equivalent"
            r"(, \d+ [a-z, ]+)*(; \d+ blind below [0-9.–]+ %)? — ")


def unfolded(md):
    """The comment as it shows before a reader opens anything."""
    return re.sub(r"<details>.*?</details>", "", md, flags=re.S)


def comparison_tables(tables):
    return [t for t in tables if t and t[0] and t[0][0][1] == "case"
            and any("paired Δ%" in c[1] for c in t[0])
            and not any("noise floor" in c[1] for c in t[0])]


def matters(c):
    return (c["significant_regression"] or c["significant_improvement"] or
            c["inconclusive"] or
            # an equivalent case is not flagged by its noise floor
            (c["within_noise"] and c["verdict"] != "equivalent"))


def compare(binary, out, tag, log, base, cand, extra=()):
    md = os.path.join(out, tag + ".md")
    js = os.path.join(out, tag + ".json")
    r = run(binary, ["compare", log, "--baseline", base, "--candidate", cand,
                     "--json", js, "--markdown", md] + list(extra), out)
    check_summary(tag, r, HEADLINE)
    tables, text = check_markdown(tag, md, "compare")
    with open(js, encoding="utf-8") as f:
        res = json.load(f)
    lines = text.split("\n")
    if len(lines) < 2 or not re.search(HEADLINE, lines[1]):
        fail("%s: the second line is not the headline: %r" %
             (tag, lines[1:2]))
    comp = comparison_tables(tables)
    for t in comp:
        if len(t[0]) > 4:
            fail("%s: a case table has %d columns, at most 4" %
                 (tag, len(t[0])))
    # Every case is a row or counted as left out, once.
    got = sorted(row[0][1].strip() for t in comp for row in t[1:])
    m = re.search(r"\*\*(\d+) of (\d+) cases are left out\*\*", text)
    left = int(m.group(1)) if m else 0
    if len(got) + left != len(res["cases"]):
        fail("%s: %d rows + %d left out != %d cases" %
             (tag, len(got), left, len(res["cases"])))
    if not m:
        check_case_cells(tag, [None] + [r for t in comp for r in t[1:]],
                         res["cases"])
    # Unfolded: exactly the cases that matter (or the first of them, when
    # they do not all fit), in the one table.
    top = Tables()
    top.feed(render(unfolded(text)))
    shown_top = [row for t in comparison_tables(top.tables) for row in t[1:]]
    want = [c for c in res["cases"] if matters(c)]
    if not m:
        check_case_cells(tag + " (unfolded)", [None] + shown_top, want)
    elif len(shown_top) > len(want) or not shown_top:
        fail("%s: %d rows unfolded, %d cases matter" %
             (tag, len(shown_top), len(want)))
    return tables, text, res


# The qualifiers a verdict cell may carry after its verdict ("· ↕
# layout-sensitive: runs disagree by 17.3 %", "· ◌ blind below 11.4 %"):
# each names its figure, so a cell that has them may wrap.
QUALIFIER = re.compile(r" · [↕◌] .*$")


def row_fits(tag, table, width=100):
    """A row renders on one line at `width` characters: its cells' text
    (less the qualifiers of its verdict), three characters of padding and
    rule each, and the closing rule."""
    for row in table[1:]:
        n = sum(len(QUALIFIER.sub("", c[1].strip())) + 3 for c in row) + 1
        if n > width:
            fail("%s: a row needs %d characters, more than %d: %r" %
                 (tag, n, width, [c[1] for c in row]))
            return


def write_log(path, cases, blocks, impls):
    """cases: (benchmark, dataset, factor per impl...)."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["benchmark", "dataset", "impl", "block", "per_call_us"])
        for ci, (b, d, *factors) in enumerate(cases):
            for blk in range(blocks):
                for impl, fac in zip(impls, factors):
                    wobble = 1 + ((ci * 7919 + blk * 104729 +
                                   len(impl) * 31) % 97 - 48) / 4800.0
                    w.writerow([b, d, impl, blk, "%.6f" % (10.0 * fac *
                                                         wobble)])


PIECES = ["\"", "'", "`", "$(", ")", ";", "<", ">", "&", "../", "%", "\\",
          "\n", "\r\n", "\t", ",", " ", "|", "#", "<script>", "&amp;", "%s%n",
          "{{", "}}", "]]>", "-->", "/", "..", "\x1b[31m", "\x7f", "*", "?",
          "~", "!", "||", "\\|", "[x](y)", "@user", "<!--", ":---|", "`|`"]


def hostile(rng):
    s = ""
    while len(s) < rng.randint(1, 30):
        k = rng.randrange(100)
        if k < 45:
            s += rng.choice(PIECES)
        elif k < 75:
            s += chr(rng.randint(0x20, 0x7e))
        elif k < 90:
            s += chr(rng.randint(0xa0, 0x7ff))
        else:
            s += chr(rng.randint(0x4e00, 0x9fff))
    # The log reader refuses no name with text in it; keep one visible
    # character so the case is not blank.
    return s + "x"


def synthetic(binary, out, rng):
    """1, 25 and 200 cases, all equivalent, mixed, and with hostile names:
    each comment parses and fits (compare() checks); the 200-equivalent
    one shows under 4 KB before anything is unfolded; with names up to 30
    characters every row fits on one line at 100 characters."""
    for n in (1, 25, 200):
        for kind in ("equivalent", "mixed", "hostile"):
            cases = []
            for i in range(n):
                if kind == "hostile":
                    b, d = hostile(rng)[:24], ""
                else:
                    # Names of 30 characters: benchmark, " [", dataset, "]".
                    b, d = "parse_json_%04d_xy" % i, "n=%07d" % (i * 37)
                fac = 1.0
                if kind != "equivalent":
                    fac = (1.25, 0.8, 1.0, 1.0, 1.0, 1.04)[i % 6]
                cases.append((b, d, 1.0, fac))
            if len({(b, d) for b, d, _, _ in cases}) != n:
                cases = [("%s%d" % (b, i), d, x, y)
                         for i, (b, d, x, y) in enumerate(cases)]
            tag = "synthetic-%d-%s" % (n, kind)
            log = os.path.join(out, tag + ".csv")
            write_log(log, cases, 10, ["main", "pr"])
            tables, text, res = compare(binary, out, tag, log, "main", "pr",
                                        ["--link-base",
                                         "https://ci.example.org/pr/123"])
            top = unfolded(text)
            if n == 200 and kind == "equivalent":
                if len(top.encode()) >= 4096:
                    fail("%s: %d bytes before unfolding, 4 KB at most" %
                         (tag, len(top.encode())))
                if "<details>" not in text:
                    fail("%s: the equivalent cases are not folded" % tag)
            if kind != "hostile":
                for t in comparison_tables(tables):
                    row_fits(tag, t)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    binary, src, out = sys.argv[1:]
    binary, src, out = (os.path.abspath(p) for p in (binary, src, out))
    if not shutil.which("cmark-gfm"):
        print("SKIPPED: cmark-gfm is not installed (apt-get install "
              "cmark-gfm); the Markdown was not rendered")
        return SKIP
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    ex = os.path.join(src, "examples")
    data = os.path.join(src, "tests", "data", "report")

    # 1. The examples: compare, compare --noise, noise, tune.
    tables, text, res = compare(binary, out, "example",
                                os.path.join(ex, "pr.csv"), "main", "pr",
                                ["--manifest", os.path.join(ex, "env.csv")])
    comp = comparison_tables(tables)
    if not comp or [c[1] for c in comp[0][0]] != [
            "case", "paired Δ% [95 % interval]", "verdict"]:
        fail("example: the case table's header is %r" %
             ([c[1] for c in comp[0][0]] if comp else None,))
    # With --link-base: a fourth column links each case's page, the
    # headline the report.
    tables, text, res = compare(binary, out, "example-link",
                                os.path.join(ex, "pr.csv"), "main", "pr",
                                ["--manifest", os.path.join(ex, "env.csv"),
                                 "--link-base", "https://example.org/r/"])
    head = text.split("\n")[1]
    if "(https://example.org/r/index.html)" not in head:
        fail("example-link: the headline does not link the report: %r" % head)
    for t in comparison_tables(tables):
        if len(t[0]) != 4:
            fail("example-link: %d columns, want 4" % len(t[0]))
        row_fits("example-link", t)
    links = re.findall(r"\]\((https://example\.org/r/case-\d{4}\.html)\)",
                       text)
    if len(set(links)) != len(res["cases"]):
        fail("example-link: %d case links for %d cases" %
             (len(set(links)), len(res["cases"])))
    noise_js = os.path.join(out, "noise.json")
    noise_md = os.path.join(out, "noise.md")
    r = run(binary, ["noise", os.path.join(ex, "aa.csv"), "--manifest",
                     os.path.join(ex, "aa-env.csv"), "--json", noise_js,
                     "--markdown", noise_md], out, (0,))
    check_summary("noise", r, r"^A/A validation of \d+ cases?")
    check_markdown("noise", noise_md, "noise")
    tables, text, res = compare(binary, out, "example-noise",
                                os.path.join(ex, "pr.csv"), "main", "pr",
                                ["--manifest", os.path.join(ex, "env.csv"),
                                 "--noise", noise_js])
    floor = [t for t in tables if "noise floor" in [c[1] for c in t[0]]]
    if not floor:
        fail("example-noise: the noise-floor table does not render as a "
             "table")
    elif [c[1] for c in floor[0][0]] != [
            "case", "noise floor", "|paired Δ%|", "threshold", "reading"]:
        fail("example-noise: noise-floor header %r" % (floor[0][0],))
    tune_md = os.path.join(out, "tune.md")
    r = run(binary, ["tune", os.path.join(ex, "tune.csv"), "--markdown",
                     tune_md], out, (0,))
    check_summary("tune", r, r"^\d+ cases? tuned, \d+ crossovers?")
    check_markdown("tune", tune_md, "tune")

    # 2. hostile.csv: its impls, A/A pair and names.
    hlog = os.path.join(data, "hostile.csv")
    B = 'base"<b>\'`touch CANARY`'
    C = '$(touch CANARY); system("touch CANARY")\n../../evil'
    tables, text, res = compare(binary, out, "hostile", hlog, B, C,
                                ["--manifest",
                                 os.path.join(data, "hostile-env.csv")])
    hn = os.path.join(out, "hostile-noise.md")
    run(binary, ["noise", hlog, "--a", "A<script>alert(1)</script>", "--b",
                 "B../x @mac !ls", "--markdown", hn], out, (0,))
    check_markdown("hostile-noise", hn, "noise")
    ht = os.path.join(out, "hostile-tune.md")
    run(binary, ["tune", hlog, "--markdown", ht], out, (0,))
    check_markdown("hostile-tune", ht, "tune")

    # 3. Random hostile names, seeded.
    rng = random.Random(0x6b656e6f)
    for rnd in range(8):
        names = set()
        while len(names) < 6:
            names.add((hostile(rng), hostile(rng) if rng.random() < .7
                       else ""))
        cases = [(b, d, 1.0, rng.choice([0.9, 1.0, 1.2])) for b, d in
                 sorted(names)]
        base, cand = hostile(rng), hostile(rng)
        if base == cand:
            cand += "2"
        log = os.path.join(out, "random-%d.csv" % rnd)
        write_log(log, cases, 8, [base, cand])
        tag = "random-%d" % rnd
        tables, text, res = compare(binary, out, tag, log, base, cand)
        tm = os.path.join(out, tag + "-tune.md")
        run(binary, ["tune", log, "--markdown", tm], out, (0,))
        tables, _ = check_markdown(tag + "-tune", tm, "tune")
        if tables:
            check_case_cells(tag + "-tune", tables[0], res["cases"])

    # 4. 1000 cases with long names: 40 regressions, the rest unchanged.
    long = "tokenize_|_" + "x" * 48
    cases = [("bench_%03d_%s" % (i // 10, long), "n=%d|%s" % (i, "y" * 40),
              1.0, 1.2 if i % 25 == 0 else 1.0) for i in range(1000)]
    log = os.path.join(out, "big.csv")
    write_log(log, cases, 6, ["main", "pr"])
    tables, text, res = compare(binary, out, "big", log, "main", "pr")
    regressed = [c for c in res["cases"] if c["significant_regression"]]
    if len(regressed) != 40:
        fail("big: %d regressions, 40 built in" % len(regressed))
    if "<details>" not in text:
        fail("big: the cases without a change are not folded")
    comp = comparison_tables(tables)
    if not comp or len(comp[0]) - 1 != 40:
        fail("big: the first table does not hold exactly the 40 "
             "regressions")
    else:
        check_case_cells("big", comp[0], regressed)
    rows = sum(len(t) - 1 for t in comp)
    m = re.search(r"\*\*(\d+) of (\d+) cases are left out\*\*", text)
    left = int(m.group(1)) if m else 0
    if rows + left != 1000 or (m and int(m.group(2)) != 1000):
        fail("big: %d rows shown + %d left out != 1000" % (rows, left))
    if not m:
        fail("big: 1000 long rows cannot all fit, yet no line says so")

    # 5. 1000 cases that all regress: nothing folds, the rest is cut.
    cases = [(b, d, 1.0, 1.2) for b, d, _, _ in cases]
    write_log(log, cases, 6, ["main", "pr"])
    tables, text, res = compare(binary, out, "big-all", log, "main", "pr")
    m = re.search(r"\*\*(\d+) of 1000 cases are left out\*\* \((\d+) that matter",
                  text)
    rows = sum(len(t) - 1 for t in comparison_tables(tables))
    if not m or rows + int(m.group(1)) != 1000 or m.group(1) != m.group(2):
        fail("big-all: %d rows shown, truncation line %r" %
             (rows, m.group(0) if m else None))

    synthetic(binary, out, rng)

    if failures:
        print("%d failures" % len(failures), file=sys.stderr)
        return 1
    print("every Markdown output renders as tables and fits")
    return 0


if __name__ == "__main__":
    sys.exit(main())
