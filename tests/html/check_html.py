#!/usr/bin/env python3
"""The headless-Chromium check of perfcheck's HTML pages.

    check_html.py --perfcheck BIN [--chromium PATH] [--screenshot OUT.png]
                  [--max-bytes N] [--keep DIR] REPORT
    check_html.py --perfcheck BIN ... --diff BEFORE AFTER

REPORT is any perfcheck JSON report or ncu raw export (so the same check runs
on an in-process report from the GPU machine).  The script makes the page
with `perfcheck report --html` (or `perfcheck diff --format html`), the
values to check it against with `--format json`, opens the page from disk in
headless Chromium, and asserts:

  - no console error, no uncaught exception, no request that leaves the file
    (no network, no CDN: every src and href is a #fragment);
  - one roofline point per kernel whose intensity and FLOP/s were measured,
    none for the others (whose legend row says why), each where the JSON's
    values put it on the page's log axes (to 0.6 px), its hover title naming
    the kernel;
  - each point's area proportional to the kernel's kernel_time_share (the
    JSON's, on data-share: r = 28 sqrt(share), at least 2.5 px) when every
    drawn kernel has one, else every point one size;
  - a point drawn from warm DRAM bytes (a multi-pass replay) or from CUDA-core
    FLOPs where the checklist left the intensity unknown sits at the JSON's
    flops / dram_bytes and flops / duration, and its legend row says so;
  - every point labelled (text.plabel) with its kernel's number among the
    verdicts;
  - a DRAM and an FP32 ceiling line exactly when the report's device holds
    that peak, each on its value; an FP64, XU and tensor roof exactly where
    the compute capability's documented rate gives one, flat at the FP32
    peak times that rate, each with its source in the legend;
  - the verdicts first: the first kernel's five bands within the first
    screen (1280 x 900), the kernels in the order of their share of the
    time, those under 1% after the others;
  - every text of a box (the five bands) inside its box, every SVG text
    inside its picture, no paragraph, list item or cell whose text overflows;
  - per kernel five bands, and the band of the verdict's step red when that
    step caught the kernel, none red for at_roof or latency_bound; step 1's
    band holds the JSON's rank and kernel_time_share, step 2's names its busiest pipe
    and memory level, step 3's reads bytes per sector where they were
    measured (report pages);
  - the kernel table sorts by time when its header is clicked;
  - the file is smaller than --max-bytes (default 1,000,000).
It writes a PNG of the whole page with --screenshot, of the first screen
with --screenshot-top, and of the roofline with --screenshot-roofline.

Chromium is driven over --remote-debugging-pipe (the DevTools protocol on
two file descriptors, NUL-terminated JSON): no port, no websocket library,
nothing beyond python3's standard library.

Exit status: 0 all checks hold; 1 a check failed; 77 no Chromium (skipped;
a failure instead when PERFCHECK_REQUIRE_CHROMIUM=1, as in CI); 2 usage.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    """A headless Chromium on the DevTools pipe."""

    def __init__(self, exe, profile):
        to_child_r, self._w = os.pipe()
        self._r, from_child_w = os.pipe()

        def fds():
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                "--user-data-dir=" + profile, "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-default-apps", "--hide-scrollbars", "--mute-audio",
                "--force-device-scale-factor=1", "about:blank"]
        self.proc = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=fds, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._id = 0
        self.events = []

    def _read_message(self, deadline):
        while b"\0" not in self._buf:
            if time.time() > deadline:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self._r, 1 << 16)
            if not chunk:
                err = self.proc.stderr.read().decode(errors="replace")[-2000:]
                raise RuntimeError("Chromium closed the pipe:\n" + err)
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=30):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, timeout=30):
        deadline = time.time() + timeout
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        while True:
            m = self._read_message(deadline)
            if m.get("method") == method:
                return m
            self.events.append(m)

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._w)
        os.close(self._r)


# What the page tells about itself, read in the page.
PAGE_FACTS = r"""
(() => {
  const r = x => x.getBoundingClientRect();
  const out = {points: [], ceilings: [], plot: null, boxes: [], svgtext: [], overflow: [], articles: [],
               legend_why: [], links: [], scripts_src: 0};
  const svg = document.querySelector('svg.roofline');
  if (svg) {
    const p = svg.querySelector('rect.plot');
    out.plot = {x: +p.getAttribute('x'), y: +p.getAttribute('y'), w: +p.getAttribute('width'),
                h: +p.getAttribute('height'), lx0: +p.dataset.lx0, lx1: +p.dataset.lx1,
                ly0: +p.dataset.ly0, ly1: +p.dataset.ly1};
    svg.querySelectorAll('circle.point').forEach(c => out.points.push({k: +c.dataset.k,
      approx: c.classList.contains('approx'),
      cx: +c.getAttribute('cx'), cy: +c.getAttribute('cy'), r: +c.getAttribute('r'),
      share: c.dataset.share === undefined ? null : +c.dataset.share, title: c.querySelector('title').textContent}));
    svg.querySelectorAll('line.ceiling').forEach(l => out.ceilings.push({kind: l.dataset.ceiling,
      value: +l.dataset.value, x1: +l.getAttribute('x1'), y1: +l.getAttribute('y1'),
      x2: +l.getAttribute('x2'), y2: +l.getAttribute('y2')}));
  }
  if (svg) {
    out.plabels = Array.from(svg.querySelectorAll('text.plabel')).map(t => ({k: +t.dataset.k, text: t.textContent}));
    out.roofbox = (b => ({x: b.left + window.scrollX, y: b.top + window.scrollY, w: b.width, h: b.height}))(r(svg));
  }
  out.roof_legend = Array.from(document.querySelectorAll('li[data-roof]')).map(l => ({pipe: l.dataset.roof,
    text: l.textContent}));
  const bands = document.querySelector('article svg.bands');
  out.first_bands_bottom = bands ? r(bands).bottom + window.scrollY : null;
  const sec = id => { const e = document.getElementById(id); return e ? r(e).top + window.scrollY : null; };
  out.top_of = {checklist: sec('checklist'), roofline: sec('roofline'), regions: sec('regions'), kernels: sec('kernels')};
  document.querySelectorAll('svg').forEach(s => {
    const sr = r(s);
    s.querySelectorAll('text').forEach(t => {
      const tr = r(t);
      if (tr.left < sr.left - 0.5 || tr.right > sr.right + 0.5 || tr.top < sr.top - 0.5 || tr.bottom > sr.bottom + 0.5)
        out.svgtext.push(t.textContent);
    });
  });
  document.querySelectorAll('g.box').forEach(g => {
    const b = r(g.querySelector('rect'));
    g.querySelectorAll('text').forEach(t => {
      const tr = r(t);
      if (tr.left < b.left - 0.5 || tr.right > b.right + 0.5 || tr.top < b.top - 0.5 || tr.bottom > b.bottom + 0.5)
        out.boxes.push(t.textContent + ' [' + Math.round(tr.width) + ' px in ' + Math.round(b.width) + ']');
    });
  });
  document.querySelectorAll('p, li, td, th, h1, h2, h3, summary').forEach(e => {
    if (e.closest('details:not([open])')) return;
    if (e.scrollWidth > e.clientWidth + 1) out.overflow.push(e.tagName + ': ' + e.textContent.slice(0, 80));
  });
  if (document.documentElement.scrollWidth > window.innerWidth + 1) {
    const wide = Array.from(document.querySelectorAll('body *')).filter(e => r(e).right > window.innerWidth + 1 &&
      !Array.from(e.children).some(c => r(c).right > window.innerWidth + 1));
    out.overflow.push('the page is wider than the window: ' + document.documentElement.scrollWidth + ' px (' +
      wide.slice(0, 3).map(e => e.tagName + '.' + e.className + ' "' + e.textContent.slice(0, 40) + '"').join(', ') + ')');
  }
  document.querySelectorAll('article').forEach(a => out.articles.push({id: a.id, num: +a.dataset.num,
    not_worth: a.classList.contains('not-worth'),
    bands: Array.from(a.querySelectorAll('g.band')).map(g => ({step: +g.dataset.step, state: g.dataset.state,
      lines: Array.from(g.querySelectorAll('text')).map(t => t.textContent)}))}));
  document.querySelectorAll('table.roof-legend tbody tr').forEach(tr => {
    const w = tr.querySelector('.why');
    out.legend_why.push(w ? w.textContent : null);
  });
  document.querySelectorAll('[src], [href]').forEach(e => out.links.push(e.getAttribute('src') || e.getAttribute('href')));
  return JSON.stringify(out);
})()
"""

# Clicks a table's header and says whether the rows follow its data-v.
SORT_CHECK = r"""
(() => {
  const table = document.querySelector('table.kernels');
  if (!table) return JSON.stringify({skipped: 'no kernel table'});
  const ths = Array.from(table.tHead.rows[0].cells);
  const th = ths.find(h => h.textContent.trim() === %s);
  if (!th) return JSON.stringify({error: 'no column ' + %s});
  const col = th.cellIndex, res = {};
  for (const dir of ['first', 'second']) {
    th.click();
    const v = Array.from(table.tBodies[0].rows).map(r => r.cells[col].getAttribute('data-v'))
      .filter(x => x !== null && x !== '').map(parseFloat);
    res[dir] = {sort: th.getAttribute('aria-sort'), values: v};
  }
  return JSON.stringify(res);
})()
"""


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def positive(v):
    return isinstance(v, (int, float)) and math.isfinite(v) and v > 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--perfcheck", required=True)
    ap.add_argument("--chromium")
    ap.add_argument("--screenshot")
    ap.add_argument("--screenshot-top", help="a PNG of the first screen (1280 x 900)")
    ap.add_argument("--screenshot-roofline", help="a PNG of the roofline")
    ap.add_argument("--max-bytes", type=int, default=1000000)
    ap.add_argument("--keep", help="keep the page and its JSON in this directory")
    ap.add_argument("--diff", action="store_true", help="two reports: check the page of perfcheck diff")
    ap.add_argument("--expect-points", type=int, help="also require exactly this many points")
    ap.add_argument("reports", nargs="+")
    a = ap.parse_args()
    if a.diff != (len(a.reports) == 2) or len(a.reports) > 2:
        ap.error("one REPORT, or --diff BEFORE AFTER")

    exe = a.chromium or shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not exe:
        msg = "no Chromium (apt-get install chromium)"
        if os.environ.get("PERFCHECK_REQUIRE_CHROMIUM") == "1":
            print("FAIL: " + msg + ", and PERFCHECK_REQUIRE_CHROMIUM=1")
            return 1
        print("SKIP: " + msg)
        return 77

    work = a.keep or tempfile.mkdtemp(prefix="perfcheck-html-")
    os.makedirs(work, exist_ok=True)
    page = os.path.join(work, "page.html")
    facts_json = os.path.join(work, "page.json")
    if a.diff:
        rc, _, err = run([a.perfcheck, "diff", "-q", "--format", "html", "-o", page] + a.reports)
        if rc not in (0, 1):
            print("FAIL: perfcheck diff --format html exited %d: %s" % (rc, err))
            return 1
        rc, _, err = run([a.perfcheck, "diff", "-q", "--format", "json", "-o", facts_json] + a.reports)
    else:
        rc, _, err = run([a.perfcheck, "report", "-q", "--html", page, a.reports[0]])
        if rc != 0:
            print("FAIL: perfcheck report --html exited %d: %s" % (rc, err))
            return 1
        rc, _, err = run([a.perfcheck, "report", "-q", "--format", "json", "-o", facts_json, a.reports[0]])
    if rc not in (0, 1):
        print("FAIL: the JSON of the same input: exit %d: %s" % (rc, err))
        return 1
    with open(facts_json) as f:
        truth = json.load(f)

    failures = []

    def check(ok, what):
        print(("PASS " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    size = os.path.getsize(page)
    check(size < a.max_bytes, "the page is %d bytes (< %d)" % (size, a.max_bytes))
    with open(page, encoding="utf-8") as f:
        source = f.read()
    check("<script src" not in source and "<link" not in source and "@import" not in source and "url(http" not in source,
          "nothing is loaded from elsewhere (no script src, link, @import, remote url)")

    profile = tempfile.mkdtemp(prefix="perfcheck-chromium-")
    b = Browser(exe, profile)
    try:
        target = b.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = b.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page", "Network"):
            b.call(domain + ".enable", session=s)
        b.call("Emulation.setDeviceMetricsOverride",
               {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=s)
        b.call("Page.navigate", {"url": "file://" + os.path.abspath(page)}, session=s)
        b.wait_event("Page.loadEventFired")
        facts = json.loads(b.call("Runtime.evaluate", {"expression": PAGE_FACTS, "returnByValue": True},
                                  session=s)["result"]["value"])
        if a.screenshot:
            b.call("Runtime.evaluate", {"expression": "window.scrollTo(0,0)"}, session=s)
            m = b.call("Page.getLayoutMetrics", session=s)
            h = min(int(math.ceil(m["cssContentSize"]["height"])), 16000)
            shot = b.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                     "clip": {"x": 0, "y": 0, "width": 1280, "height": h, "scale": 1}},
                          session=s)
            import base64
            with open(a.screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            print("screenshot: %s (1280 x %d)" % (a.screenshot, h))
        if a.screenshot_top:
            b.call("Runtime.evaluate", {"expression": "window.scrollTo(0,0)"}, session=s)
            shot = b.call("Page.captureScreenshot", {"format": "png",
                                                     "clip": {"x": 0, "y": 0, "width": 1280, "height": 900, "scale": 1}},
                          session=s)
            import base64
            with open(a.screenshot_top, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            print("screenshot of the first screen: %s" % a.screenshot_top)
        if a.screenshot_roofline and facts.get("roofbox"):
            rb = facts["roofbox"]
            shot = b.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                     "clip": {"x": rb["x"], "y": rb["y"], "width": rb["w"],
                                                              "height": rb["h"], "scale": 1}}, session=s)
            import base64
            with open(a.screenshot_roofline, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            print("screenshot of the roofline: %s" % a.screenshot_roofline)
        col = json.dumps("after" if a.diff else "median")
        sort = json.loads(b.call("Runtime.evaluate", {"expression": SORT_CHECK % (col, col), "returnByValue": True},
                                 session=s)["result"]["value"])
        time.sleep(0.2)
        b.call("Runtime.evaluate", {"expression": "1"}, session=s)  # drains late events
    finally:
        b.close()
        shutil.rmtree(profile, ignore_errors=True)

    # Console, exceptions, network.
    errors, requests = [], []
    for e in b.events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.exceptionThrown":
            errors.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:300])
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
            errors.append("console.%s: %s" % (p["type"], json.dumps(p.get("args"))[:300]))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
            errors.append("log: " + p["entry"].get("text", "")[:300])
        elif m == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            if not url.startswith("file://") and not url.startswith("data:") and url != "about:blank":
                requests.append(url)
    check(not errors, "no console errors or warnings" + ("" if not errors else ": " + "; ".join(errors)))
    check(not requests, "no request leaves the file" + ("" if not requests else ": " + ", ".join(requests)))
    bad_links = [l for l in facts["links"] if not l.startswith("#")]
    check(not bad_links, "every link is inside the page" + ("" if not bad_links else ": " + ", ".join(bad_links)))

    # The roofline against the JSON.
    shares = {}
    if a.diff:
        dev = truth["after_device"]
        expect = {}
        for i, k in enumerate(truth["kernels"]):
            side = k.get("after")
            if side and positive(side.get("arithmetic_intensity")) and positive(side.get("gflops")):
                expect[i] = (side["arithmetic_intensity"], side["gflops"], k["label"])
                shares[i] = side.get("kernel_time_share")
        kernels_n = len(truth["kernels"])
    else:
        dev = truth["device"]
        expect = {}
        for i, k in enumerate(truth["kernels"]):
            d = k.get("derived", {})
            if positive(d.get("arithmetic_intensity")) and positive(d.get("gflops")):
                expect[i] = (d["arithmetic_intensity"], d["gflops"], k.get("display_name") or k["name"])
                shares[i] = k.get("kernel_time_share")
        kernels_n = len(truth["kernels"])
    pts = {p["k"]: p for p in facts["points"]}
    # Points the page drew where the checklist left the intensity unknown
    # (warm DRAM bytes of a multi-pass replay: hollow; CUDA-core FLOPs of a
    # kernel with a little tensor activity): their legend row says how, and
    # they sit at the JSON's flops / dram_bytes and flops / duration.
    noted = {}
    if not a.diff:
        for i, k in enumerate(truth["kernels"]):
            if i in expect or i not in pts:
                continue
            d = k.get("derived", {})
            dur = (k.get("metrics") or {}).get("gpu__time_duration.sum")
            why = facts["legend_why"][i] if i < len(facts["legend_why"]) else None
            if positive(d.get("flops")) and positive(d.get("dram_bytes")) and positive(dur) and why and \
                    (("approximate" in why) == pts[i]["approx"]):
                noted[i] = (d["flops"] / d["dram_bytes"], d["flops"] / dur, k.get("display_name") or k["name"])
                shares[i] = k.get("kernel_time_share")
        expect.update(noted)
    check(facts["plot"] is not None, "the page has a roofline")
    check(len(facts["points"]) == len(expect) and set(pts) == set(expect),
          "one point per measured kernel: %d points, %d kernels measured of %d (%d of them drawn as the legend "
          "says)" % (len(facts["points"]), len(expect), kernels_n, len(noted)))
    labelled = {l["k"]: l["text"] for l in facts.get("plabels", [])}
    nums = {int(x["id"][1:]): x["num"] for x in facts["articles"]} if not a.diff else {}
    unlabelled = [i for i in pts if i not in labelled or
                  (i in nums and not labelled[i].split(" ")[0] == str(nums[i]))]
    check(not unlabelled, "every point is labelled with its kernel's number among the verdicts" +
          ("" if not unlabelled else ": " + ", ".join(map(str, unlabelled[:5]))))
    if a.expect_points is not None:
        check(len(facts["points"]) == a.expect_points, "exactly %d points" % a.expect_points)
    pl = facts["plot"] or {"x": 0, "y": 0, "w": 1, "h": 1, "lx0": 0, "lx1": 1, "ly0": 0, "ly1": 1}

    def X(v):
        return pl["x"] + (math.log10(v) - pl["lx0"]) / (pl["lx1"] - pl["lx0"]) * pl["w"]

    def Y(v):
        return pl["y"] + pl["h"] - (math.log10(v) - pl["ly0"]) / (pl["ly1"] - pl["ly0"]) * pl["h"]

    misplaced = []
    for i, (ai, gf, name) in expect.items():
        p = pts.get(i)
        if p is None:
            continue
        # The title holds the label: the display name, or a longer form of the
        # name where two kernels share it (up to the display's first "...").
        if abs(p["cx"] - X(ai)) > 0.6 or abs(p["cy"] - Y(gf)) > 0.6 or name.split("...")[0] not in p["title"]:
            misplaced.append("%s at (%.1f, %.1f), wanted (%.1f, %.1f)" % (name, p["cx"], p["cy"], X(ai), Y(gf)))
    check(not misplaced, "every point where its intensity and FLOP/s put it, titled with its kernel" +
          ("" if not misplaced else ": " + "; ".join(misplaced[:5])))
    scaled = bool(expect) and all(isinstance(shares.get(i), (int, float)) and shares[i] >= 0 for i in expect)
    if scaled:
        wrong = ["%d: share %s r %.2f, JSON share %s" % (i, p["share"], p["r"], shares[i]) for i, p in pts.items()
                 if i in shares and (p["share"] is None or abs(p["share"] - shares[i]) > 1e-6 * max(1, shares[i]) or
                                     abs(p["r"] - max(2.5, 28 * math.sqrt(min(shares[i], 1)))) > 0.01)]
        check(not wrong, "every point's area is its kernel_time_share (%d points)" % len(pts) +
              ("" if not wrong else ": " + "; ".join(wrong[:5])))
    else:
        radii = {p["r"] for p in pts.values()}
        check(len(radii) <= 1 and not any(p["share"] is not None for p in pts.values()),
              "one size for every point: a drawn kernel has no kernel_time_share")
    if not a.diff:
        missing = [i for i in range(kernels_n) if i not in expect]
        why = facts["legend_why"]
        unexplained = [i for i in missing if i >= len(why) or not why[i] or "no point" not in why[i]]
        check(not unexplained, "every kernel without a point says why in the legend (%d of them)" % len(missing))

    ceil = {}
    for c in facts["ceilings"]:
        ceil.setdefault(c["kind"], []).append(c)
    bw, fp = dev.get("peak_dram_bytes_per_s"), dev.get("peak_fp32_flop_per_s")
    check(("dram" in ceil) == positive(bw), "a DRAM ceiling line exactly when the device has a peak (%s)" % bw)
    check(("fp32" in ceil) == positive(fp), "an FP32 ceiling line exactly when the device has a peak (%s)" % fp)
    # The pipes' documented rates per SM and cycle, against FP32's (the
    # device model's table): FP64 FMA, XU results, dense FP16 tensor FLOP.
    cc = dev.get("compute_capability") or ""
    if a.diff:  # the diff's JSON names the after run's device, not its compute capability
        rc, out, _ = run([a.perfcheck, "report", "-q", "--format", "json", a.reports[1]])
        if rc in (0, 1):
            cc = (json.loads(out).get("device") or {}).get("compute_capability") or ""
    lanes = {"7.0": 64, "7.5": 64, "8.0": 64, "8.6": 128, "8.7": 128, "8.9": 128, "9.0": 128}.get(cc)
    rates = {"fp64": {"6.0": 64, "7.0": 64, "7.5": 4, "8.0": 64, "8.6": 4, "8.7": 4, "8.9": 4, "9.0": 128},
             "xu": {"7.0": 16, "7.5": 16, "8.0": 16, "8.6": 16, "8.7": 16, "8.9": 16, "9.0": 16},
             "tensor": {"7.0": 1024, "7.5": 1024, "8.0": 2048, "9.0": 4096}}
    legend = {l["pipe"]: l["text"] for l in facts.get("roof_legend", [])}
    for pipe, table in rates.items():
        want = positive(fp) and lanes and cc in table
        check((pipe in ceil) == bool(want), "a %s roof exactly where compute capability %s documents one" % (pipe, cc))
        if want and pipe in ceil:
            v = fp * table[cc] / (2 * lanes)
            c = ceil[pipe][0]
            check(abs(c["value"] / v - 1) < 1e-5 and abs(c["y1"] - Y(v / 1e9)) < 1.0 and c["y1"] == c["y2"],
                  "the %s roof is flat at the FP32 peak x %d/%d = %.4g /s" % (pipe, table[cc], 2 * lanes, v))
        check(pipe in legend and (("Programming Guide" in legend[pipe] or "whitepaper" in legend[pipe]) if want
                                  else "not drawn" in legend[pipe]),
              "the legend says where the %s roof comes from, or why there is none" % pipe)
    if "dram" in ceil and positive(bw):
        c = ceil["dram"][0]
        on = all(abs(Y(bw * 10 ** ((x - pl["x"]) / pl["w"] * (pl["lx1"] - pl["lx0"]) + pl["lx0"]) / 1e9) - y) < 1.0
                 for x, y in ((c["x1"], c["y1"]), (c["x2"], c["y2"])))
        check(abs(c["value"] / bw - 1) < 1e-5 and on, "the DRAM line is y = %.4g B/s x intensity" % bw)
    if "fp32" in ceil and positive(fp):
        c = ceil["fp32"][0]
        check(abs(c["value"] / fp - 1) < 1e-5 and abs(c["y1"] - Y(fp / 1e9)) < 1.0 and c["y1"] == c["y2"],
              "the FP32 line is flat at %.4g FLOP/s" % fp)

    check(not facts["boxes"], "every text of a band inside its box" +
          ("" if not facts["boxes"] else ": " + "; ".join(facts["boxes"][:5])))
    check(not facts["svgtext"], "every SVG text inside its picture" +
          ("" if not facts["svgtext"] else ": " + "; ".join(facts["svgtext"][:5])))
    check(not facts["overflow"], "no text overflows its paragraph, item or cell" +
          ("" if not facts["overflow"] else ": " + "; ".join(facts["overflow"][:5])))

    if not a.diff:
        order = [int(x["id"][1:]) for x in facts["articles"]]
        arts = {int(x["id"][1:]): x for x in facts["articles"]}
        check(len(arts) == kernels_n and all(len(x["bands"]) == 5 for x in arts.values()),
              "five bands for each of the %d kernels" % kernels_n)

        def worth(k):
            w = k.get("worth_changing")
            if w in (True, False):
                return w
            sh = k.get("kernel_time_share")
            return None if not isinstance(sh, (int, float)) else sh >= 0.01

        def rank_key(i):
            k = truth["kernels"][i]
            w = worth(k)
            sh = k.get("kernel_time_share")
            tot = k.get("total_ns")
            return (0 if w is True else 2 if w is False else 1, -(sh if isinstance(sh, (int, float)) else -1),
                    -(tot if isinstance(tot, (int, float)) else -1), i)
        check(order == sorted(range(kernels_n), key=rank_key),
              "the verdicts in the order of their share of the time, those under 1%% after the others: %s" % order[:12])
        flagged = [i for i in order if arts[i]["not_worth"] != (worth(truth["kernels"][i]) is False)]
        check(not flagged, "a kernel under 1%% of the time, and only such a kernel, is marked not worth changing%s" %
              ("" if not flagged else ": " + ", ".join(map(str, flagged[:5]))))
        fb = facts.get("first_bands_bottom")
        check(kernels_n == 0 or (fb is not None and fb <= 900),
              "the first kernel's five bands are in the first screen (their bottom at %s px of 900)" % fb)
        tops = facts["top_of"]
        check(tops["checklist"] is not None and tops["roofline"] is not None and tops["checklist"] < tops["roofline"]
              < tops["regions"] < tops["kernels"], "the verdicts first, then the roofline, the regions and the kernels")
        wrong = []
        for i, k in enumerate(truth["kernels"]):
            v = k["diagnosis"]
            if 1 <= v["step"] <= 5 and v["cause"] != "not_assessed" and i in arts:
                band = [b for b in arts[i]["bands"] if b["step"] == v["step"]]
                if not band or band[0]["state"] != "catches":
                    wrong.append("%s: step %d %s but band %s" % (k["name"], v["step"], v["cause"],
                                                                 band[0]["state"] if band else "missing"))
            if v["step"] == 0 and v["cause"] in ("at_roof", "latency_bound") and i in arts:
                red = [b["step"] for b in arts[i]["bands"] if b["state"] == "catches"]
                if red:
                    wrong.append("%s: %s but red band(s) %s" % (k["name"], v["cause"], red))
        check(not wrong, "the verdict's step is the red band" + ("" if not wrong else ": " + "; ".join(wrong[:5])))

        def unit_text(u):
            return u["name"] if u else "-"

        def num(v):  # pc_html_num
            if v == math.floor(v) and abs(v) < 1e15:
                return "%.0f" % v
            return "%.0f" % v if abs(v) >= 1e4 else "%.4g" % v if abs(v) >= 1e-3 else "%.3e" % v
        wrong = []
        for i, k in enumerate(truth["kernels"]):
            if i not in arts:
                continue
            bands = {b["step"]: b for b in arts[i]["bands"]}
            d = k.get("derived", {})
            pipe, mem = unit_text(d.get("busiest_pipe")), unit_text(d.get("busiest_memory"))
            lines = bands.get(2, {}).get("lines", [])
            if not any(l.startswith("pipe " + pipe) for l in lines) or \
                    not any(l.startswith("memory " + mem) for l in lines):
                wrong.append("%s: step 2 band %s, JSON busiest pipe %s, memory %s" % (k["name"], lines, pipe, mem))
            share, rank = k.get("kernel_time_share"), k.get("rank")
            peers = sum(1 for o in truth["kernels"] if o.get("region") == k.get("region"))
            if isinstance(share, (int, float)) and isinstance(rank, int):
                want1 = "rank %d/%d, %s%%" % (rank, peers, num(share * 100))
            elif isinstance(share, (int, float)):
                want1 = "%s%% of %s time" % (num(share * 100), "kernel" if truth.get("step1_assessed") else "export")
            else:
                want1 = "share of kernel time -"
            if bands.get(1, {}).get("lines", ["", ""])[1:2] != [want1]:
                wrong.append("%s: step 1 band %s, wanted %r" % (k["name"], bands.get(1, {}).get("lines"), want1))
            b3 = bands.get(3, {})
            if positive(d.get("bytes_per_sector_ld")) and not b3.get("lines", [""])[-1].startswith("skipped") and \
                    not any(l.startswith(("bytes/sector ld", "cp.async", "local", "bank", "atomic"))
                            for l in b3.get("lines", [])):
                wrong.append("%s: bytes per sector measured, step 3 band %s" % (k["name"], b3.get("lines")))
        check(not wrong, "step 1's band holds the kernel's rank and share, step 2's names the busiest units, step 3's reads "
              "bytes per sector where measured" +
              ("" if not wrong else ": " + "; ".join(wrong[:5])))

    if "error" in sort:
        check(False, "the kernel table sorts: " + sort["error"])
    elif "skipped" not in sort:
        v1, v2 = sort["first"]["values"], sort["second"]["values"]
        check(v1 == sorted(v1, reverse=True) and v2 == sorted(v2) and sort["first"]["sort"] == "descending",
              "the kernel table sorts by time, both ways (%d values)" % len(v1))

    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    n = len(failures)
    print("check_html: %d failed (%s)" % (n, " ".join(a.reports)))
    return 1 if n else 0


if __name__ == "__main__":
    sys.exit(main())
