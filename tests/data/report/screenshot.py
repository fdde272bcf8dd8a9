#!/usr/bin/env python3
"""Renders the example reports, loads them in headless Chromium and checks
that every page draws (at 1280 px, and at 390 px in light and dark), every
chart loads (no broken image) and that the screenshots are produced.

Then a synthetic report and site with 60-character case names, long impl
ids and 40-digit commit ids (three runs) are built, and the geometry of
their pages and of the example report's index, case and A/A pages is
measured at 390 and 1280 px wide, all in one browser run: a harness page
frames each page at the width under test and reads every verdict cell's
box (td.verdict, or the column by place in the runs table and on a
compact run page: the verdict badge of a comparison, the counts of a run,
the fastest impl of a tuning row), every row header and every chart. The
check fails when a verdict cell is not entirely inside the viewport with
the page scrolled to its left edge (so the reader would have to scroll
sideways to see it), when its content is wider than the cell (a clipped
badge), when a name overflows its cell, when the page itself scrolls
sideways, or when a chart's point marker (read from the SVG, placed by
the image's rendered box) lies outside the part of the page the reader
sees: the viewport's width, cut by every ancestor that clips (a scroll
box). The pages under test have no script; the harness is a test
artifact.

    screenshot.py BENCHSITE SOURCE_DIR OUT_DIR

Exit status 77 (a CTest skip) when no Chromium is installed. Set
BENCHSITE_CHROMIUM to use another browser binary. Nothing runs through a
shell."""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

SKIP = 77


def chromium():
    for name in (os.environ.get("BENCHSITE_CHROMIUM"), "chromium",
                 "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def browser(exe, *args):
    with tempfile.TemporaryDirectory() as profile:
        cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-quic", "--no-first-run",
               "--disable-background-networking",
               "--disable-component-update", "--disable-sync",
               "--hide-scrollbars", "--user-data-dir=" + profile] + list(args)
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=120)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def report(binary, out, *args):
    r = subprocess.run([binary, "report", *args, "--out", out],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        sys.exit("report failed (%d): %s" % (r.returncode, r.stderr))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    binary, src, out = sys.argv[1:]
    exe = chromium()
    if not exe:
        print("SKIPPED: chromium is not installed (apt-get install "
              "chromium); the report was not checked in a browser")
        return SKIP
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    ex = os.path.join(src, "examples")
    site = os.path.join(out, "example")
    tune = os.path.join(out, "tune")
    report(binary, site, os.path.join(ex, "pr.csv"), os.path.join(ex, "aa.csv"),
           "--manifest", os.path.join(ex, "env.csv"),
           "--manifest", os.path.join(ex, "aa-env.csv"))
    report(binary, tune, os.path.join(ex, "tune.csv"),
           "--manifest", os.path.join(ex, "tune-env.csv"))

    failures = []
    pages = [(site, "index.html"), (site, "case-0004.html"),
             (site, "aa.html"), (tune, "tuning.html")]
    # 1. Screenshots: the page must draw, at a desktop's width and at a
    #    phone's (390 px: light and dark).
    shots = [(root, page, 1280, "") for root, page in pages]
    shots += [(site, p, 390, "") for p in ("index.html", "case-0004.html",
                                            "aa.html")]
    shots += [(site, "index.html", 390, "dark")]
    for root, page, width, mode in shots:
        png = os.path.join(out, "%s-%s-%d%s.png" % (
            os.path.basename(root), page.replace(".html", ""), width,
            "-" + mode if mode else ""))
        url = "file://" + os.path.abspath(os.path.join(root, page))
        extra = ["--force-dark-mode"] if mode else []
        browser(exe, *extra, "--screenshot=" + png,
                "--window-size=%d,2000" % width, url)
        size = png_size(png) if os.path.exists(png) else None
        if size != (width, 2000) or os.path.getsize(png) < 20000:
            failures.append("%s: no usable screenshot (%s)" % (png, size))
        else:
            print("screenshot", png)

    # 2. Broken images: one harness page (outside the report) loads every
    #    chart the pages embed and counts those that fail to decode.
    srcs = []
    for root, page in pages:
        with open(os.path.join(root, page), encoding="utf-8") as f:
            html = f.read()
        found = re.findall(r'<img src="([^"]+)"', html)
        if not found:
            failures.append("%s: no charts embedded" % page)
        srcs += [os.path.abspath(os.path.join(root, s)) for s in found]
    imgs = "".join('<img src="file://%s">' % s for s in srcs)
    harness = os.path.join(out, "harness.html")
    with open(harness, "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html><html><body>%s<p id=r>pending</p>"
                "<script>window.onload=function(){var b=0,n=0;"
                "for(const i of document.images){n++;"
                "if(!i.complete||i.naturalWidth===0)b++;}"
                "document.getElementById('r').textContent="
                "'IMAGES='+n+' BROKEN='+b;};</script></body></html>"
                % imgs)
    r = browser(exe, "--dump-dom", "--virtual-time-budget=10000",
                "file://" + harness)
    m = re.search(r"IMAGES=(\d+) BROKEN=(\d+)", r.stdout)
    if not m:
        failures.append("the image check did not run")
    elif int(m.group(1)) != len(srcs) or int(m.group(2)) != 0:
        failures.append("%s of %s images broken" % (m.group(2), m.group(1)))
    else:
        print("%s charts load" % m.group(1))
    long_pages, bad = check_long_names(exe, binary, out)
    failures += bad
    # 3. Geometry at 390 and 1280 px: the example report's pages with
    #    their charts, and the long names' report and site.
    failures += check_geometry(exe, out, [(site, "index.html", 4),
                                          (site, "case-0004.html", 0),
                                          (site, "aa.html", 0)] + long_pages)
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    return 0


IMPLS = ["main_baseline_build", "pull_request_candidate",
         "simd_variant_experimental"]


def long_case(i):
    """60-character case names without a space to break at."""
    b = "tokenize_unicode_normalization_nfkc_casefold_%02d" % i
    if i % 2:
        return b + "_with_a_long_tail", "", None
    return b, "n=%d" % (2 ** (i // 2 + 3)), 2 ** (i // 2 + 3)


def write_long(path, env, n):
    import csv
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["benchmark", "dataset", "scale", "impl", "run", "block",
                    "per_call_us"])
        for i in range(30):
            b, d, sc = long_case(i)
            for blk in range(10):
                for k in range(3):
                    impl = IMPLS[(blk + k) % 3]
                    fac = [1.0, [1.0, 1.12, 0.85, 1.01][(i + n) % 4],
                           0.9 if (sc or 0) > 64 else 1.3][IMPLS.index(impl)]
                    wob = 1 + ((i * 7919 + blk * 104729 + k * 31) % 97
                               - 48) / 4800.0
                    w.writerow([b, d, sc or "", impl, 0, blk,
                                "%.6f" % (10.0 * (1 + i) * fac * wob)])
    base = 0x1234567890abcdef1234567890abcdef12345678
    with open(env, "w", encoding="utf-8") as f:
        f.write("key,value\ntarget,native\nprofile,release\ndtype,f64\n"
                "machine,x86_64 Synthetic CPU x8\nfrequency_policy,"
                "performance\nprotocol,Development\nbaseline,%s\n"
                "candidate,%s\ncommit,%040x\nbaseline_commit,%040x\n"
                "date,2026-01-%02dT00:00:00Z\n" %
                (IMPLS[0], IMPLS[1], base + n, base + n - 1, n + 1))


# The probe: one harness page frames every page under test at the width
# under test (headless Chromium's window is at least 500 px wide, a frame
# can be any width) and reads each framed page's geometry once all have
# loaded. The pages themselves are loaded unchanged; the harness is a
# test artifact. For every chart it reports the image's box and the part
# of it that can be seen (the viewport's width, cut by every ancestor that
# clips); the markers' places come from the SVG files themselves.
GEOMETRY_HEAD = """<!DOCTYPE html><html><body style="margin:0">"""
GEOMETRY_FRAME = """<iframe src="%(page)s" data-tag="%(tag)s"
 style="width:%(w)dpx;height:900px;border:0;display:block"></iframe>"""
GEOMETRY_SCRIPT = """<script>
function probe(f) {
  var d = f.contentDocument, bad = [], n = 0, charts = [];
  var W = d.documentElement.clientWidth;
  d.querySelectorAll('td.verdict, table.runs td:nth-child(n+3):nth-child(-n+7), ' +
                     'table.compact td:nth-child(2)').forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (!r.width) return;
    n++;
    if (r.left < -0.5 || r.right > W + 0.5)
      bad.push('verdict outside the viewport: ' + Math.round(r.left) + '..' +
               Math.round(r.right) + ' of ' + W + ': ' + e.textContent);
    e.querySelectorAll('.badge').forEach(function (b) {
      var q = b.getBoundingClientRect();
      if (q.right > W + 0.5 || q.right > r.right + 0.5)
        bad.push('badge outside its cell: ' + b.textContent);
    });
    if (e.scrollWidth > e.clientWidth + 1)
      bad.push('verdict cell clipped: ' + e.textContent);
  });
  d.querySelectorAll('table.data caption').forEach(function (e) {
    var r = e.getBoundingClientRect();
    var box = e.closest('.table-wrap');
    var right = box ? box.getBoundingClientRect().right : W;
    if (r.width && (r.left < -0.5 || r.right > Math.min(W, right) + 0.5))
      bad.push('caption cut off: ' + Math.round(r.left) + '..' +
               Math.round(r.right) + ' of ' + Math.round(Math.min(W, right)) +
               ': ' + e.textContent.slice(0, 40));
  });
  d.querySelectorAll('tbody th').forEach(function (e) {
    if (e.scrollWidth > e.clientWidth + 1)
      bad.push('name overflows its cell: ' + e.textContent);
  });
  if (d.documentElement.scrollWidth > W + 1)
    bad.push('the page scrolls sideways: ' +
             d.documentElement.scrollWidth + ' > ' + W);
  d.querySelectorAll('figure.chart img').forEach(function (img) {
    var r = img.getBoundingClientRect();
    var c = {l: 0, r: W, t: -1e9, b: 1e9};
    for (var e = img.parentElement; e && e !== d.documentElement;
         e = e.parentElement) {
      var cs = f.contentWindow.getComputedStyle(e), q = e.getBoundingClientRect();
      if (cs.overflowX !== 'visible') {
        c.l = Math.max(c.l, q.left + e.clientLeft);
        c.r = Math.min(c.r, q.left + e.clientLeft + e.clientWidth);
      }
      if (cs.overflowY !== 'visible') {
        c.t = Math.max(c.t, q.top + e.clientTop);
        c.b = Math.min(c.b, q.top + e.clientTop + e.clientHeight);
      }
    }
    charts.push({src: img.src, l: r.left, t: r.top, w: r.width, h: r.height,
                 cl: c.l, cr: c.r, ct: c.t, cb: c.b});
  });
  return {tag: f.dataset.tag, w: W, n: n, bad: bad, charts: charts};
}
window.addEventListener('load', function () {
  var res = [];
  document.querySelectorAll('iframe').forEach(function (f) {
    try { res.push(probe(f)); }
    catch (e) { res.push({tag: f.dataset.tag, error: String(e)}); }
  });
  var o = document.createElement('pre');
  o.textContent = 'GEOMETRY ' + JSON.stringify(res);
  document.body.appendChild(o);
});
</script></body></html>"""


def geometry(exe, out, frames):
    """frames: (tag, page path, width). Returns {tag: result} or None."""
    import html as htmlmod
    import json
    probe = os.path.join(out, "geometry-probe.html")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(GEOMETRY_HEAD)
        for tag, page, width in frames:
            f.write(GEOMETRY_FRAME % {"page": "file://" + page, "tag": tag,
                                      "w": width})
        f.write(GEOMETRY_SCRIPT)
    # The harness reads its frames' documents: file URLs are separate
    # origins unless the browser is told otherwise.
    r = browser(exe, "--dump-dom", "--virtual-time-budget=30000",
                "--window-size=1400,1000", "--allow-file-access-from-files",
                "file://" + probe)
    m = re.search(r"GEOMETRY (\[.*?\])</pre>", r.stdout, re.S)
    if not m:
        return None
    return {g["tag"]: g for g in json.loads(htmlmod.unescape(m.group(1)))}


MARKER = re.compile(r'<use xlink:href="#gpPt\d+" transform="translate\('
                    r'(-?[\d.]+),(-?[\d.]+)\)')


def svg_markers(path):
    """The viewBox (width, height) and every point marker's (x, y)."""
    with open(path, encoding="utf-8") as f:
        svg = f.read()
    vb = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg)
    if not vb:
        return None, []
    return ((float(vb.group(1)), float(vb.group(2))),
            [(float(x), float(y)) for x, y in MARKER.findall(svg)])


def chart_failures(tag, g):
    """Every point marker of every chart must lie in the part of the page
    the reader sees without scrolling sideways."""
    import urllib.parse
    bad, seen = [], 0
    for c in g.get("charts", []):
        path = urllib.parse.unquote(urllib.parse.urlparse(c["src"]).path)
        size, marks = svg_markers(path)
        if not size:
            bad.append("%s: %s has no viewBox" % (tag, os.path.basename(path)))
            continue
        sx, sy = c["w"] / size[0], c["h"] / size[1]
        out_of_view = [(x, y) for x, y in marks
                       if not (c["cl"] - 0.5 <= c["l"] + x * sx <= c["cr"] + 0.5
                               and c["ct"] - 0.5 <= c["t"] + y * sy
                               <= c["cb"] + 0.5)]
        seen += len(marks)
        if out_of_view:
            bad.append("%s: %d of %d markers of %s outside the visible box "
                       "(%d..%d px), e.g. at x = %d px" % (
                           tag, len(out_of_view), len(marks),
                           os.path.basename(path), c["cl"], c["cr"],
                           c["l"] + out_of_view[0][0] * sx))
    return bad, seen


def check_geometry(exe, out, pages):
    """pages: (root, page, how many verdict cells it must have at least).
    Each at 390 and 1280 px, probed in one browser run."""
    failures = []
    frames = []
    for width in (390, 1280):
        for root, page, want in pages:
            tag = "%s-%s-%d" % (os.path.basename(root),
                                page.replace(".html", ""), width)
            frames.append((tag, os.path.abspath(os.path.join(root, page)),
                           width, want))
    res = geometry(exe, out, [(t, p, w) for t, p, w, _ in frames])
    if res is None:
        return ["the geometry probe did not run"]
    for tag, _, width, want in frames:
        g = res.get(tag)
        if g is None or "error" in g:
            failures.append("%s: not probed (%s)" % (
                tag, g.get("error") if g else "missing"))
            continue
        if g["w"] != width:
            failures.append("%s: the viewport is %d px wide, not %d" %
                            (tag, g["w"], width))
        if g["n"] < want:
            failures.append("%s: %d verdict cells, at least %d expected" %
                            (tag, g["n"], want))
        for b in g["bad"][:5]:
            failures.append("%s: %s" % (tag, b))
        bad, seen = chart_failures(tag, g)
        failures += bad[:5]
        if not g["bad"] and not bad:
            print("%s: %d verdict cells and %d chart markers inside %d px" %
                  (tag, g["n"], seen, g["w"]))
    return failures


def check_long_names(exe, binary, out):
    """The synthetic report and site with long names: the pages to probe,
    and failures of building them."""
    syn = os.path.join(out, "long")
    os.makedirs(syn)
    archive = os.path.join(syn, "archive")
    for n in range(3):
        log = os.path.join(syn, "long%d.csv" % n)
        env = os.path.join(syn, "long%d-env.csv" % n)
        write_long(log, env, n)
        if n == 0:
            report(binary, os.path.join(syn, "report"), log, "--manifest", env)
        r = subprocess.run([binary, "archive", "add", "--archive", archive,
                            log, "--manifest", env], capture_output=True,
                           text=True, timeout=300)
        if r.returncode != 0:
            return [], ["archive add failed: %s" % r.stderr]
    site = os.path.join(syn, "site")
    r = subprocess.run([binary, "site", "--archive", archive, "--out", site,
                        "--quiet"], capture_output=True, text=True,
                       timeout=300)
    if r.returncode != 0:
        return [], ["site failed: %s" % r.stderr]
    rep = os.path.join(syn, "report")
    runs = sorted(f for f in os.listdir(site) if f.startswith("run-"))
    cases = sorted(f for f in os.listdir(site) if f.startswith("case-"))
    failures = []
    # Two screenshots to look at; the assertions are the geometry's.
    for root, page in ((rep, "index.html"), (site, "index.html")):
        png = os.path.join(out, "long-%s-%s-390.png" % (
            os.path.basename(root), page.replace(".html", "")))
        browser(exe, "--screenshot=" + png, "--window-size=390,1400",
                "file://" + os.path.join(root, page))
        if png_size(png) != (390, 1400):
            failures.append("%s: no screenshot" % png)
        else:
            print("screenshot", png)
    return [(rep, "index.html", 30), (rep, "tuning.html", 15),
            (site, "index.html", 15), (site, runs[-1], 30),
            (site, cases[0], 3)], failures


if __name__ == "__main__":
    sys.exit(main())
