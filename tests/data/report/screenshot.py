#!/usr/bin/env python3
"""Renders the example reports, loads them in headless Chromium and checks
that every page draws, every chart loads (no broken image) and that the
screenshots are produced.

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
    # 1. Screenshots: the page must draw.
    for root, page in pages:
        png = os.path.join(out, os.path.basename(root) + "-" +
                           page.replace(".html", ".png"))
        url = "file://" + os.path.abspath(os.path.join(root, page))
        browser(exe, "--screenshot=" + png, "--window-size=1280,2000", url)
        size = png_size(png) if os.path.exists(png) else None
        if size != (1280, 2000) or os.path.getsize(png) < 20000:
            failures.append("%s: no usable screenshot (%s)" % (page, size))
        else:
            print("screenshot", png)

    # 2. Broken images: a harness page (outside the report) loads every
    #    chart a page embeds and counts those that fail to decode.
    for root, page in pages:
        with open(os.path.join(root, page), encoding="utf-8") as f:
            html = f.read()
        srcs = re.findall(r'<img src="([^"]+)"', html)
        if not srcs:
            failures.append("%s: no charts embedded" % page)
            continue
        imgs = "".join('<img src="file://%s">' %
                       os.path.abspath(os.path.join(root, s)) for s in srcs)
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
            failures.append("%s: the image check did not run" % page)
        elif int(m.group(1)) != len(srcs) or int(m.group(2)) != 0:
            failures.append("%s: %s of %s images broken" %
                            (page, m.group(2), m.group(1)))
        else:
            print("%s: %s charts load" % (page, m.group(1)))
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
