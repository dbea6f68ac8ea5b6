#!/usr/bin/env python3
"""The headless-Chromium check of perfcheck's HTML pages (issue 13, item 2).

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
  - a DRAM and an FP32 ceiling line exactly when the report's device holds
    that peak, each on its value; no tensor roof (the report has none yet);
  - every text of a box (the five bands) inside its box, every SVG text
    inside its picture, no paragraph, list item or cell whose text overflows;
  - per kernel five bands, and the band of the verdict's step red when that
    step caught the kernel, none red for at_roof or latency_bound; step 1's
    band holds the JSON's rank and kernel_time_share, step 2's names its busiest pipe
    and memory level, step 3's reads bytes per sector where they were
    measured (report pages);
  - the kernel table sorts by time when its header is clicked;
  - the file is smaller than --max-bytes (default 1,000,000).
It writes a PNG of the whole page with --screenshot.

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
      cx: +c.getAttribute('cx'), cy: +c.getAttribute('cy'), r: +c.getAttribute('r'),
      share: c.dataset.share === undefined ? null : +c.dataset.share, title: c.querySelector('title').textContent}));
    svg.querySelectorAll('line.ceiling').forEach(l => out.ceilings.push({kind: l.dataset.ceiling,
      value: +l.dataset.value, x1: +l.getAttribute('x1'), y1: +l.getAttribute('y1'),
      x2: +l.getAttribute('x2'), y2: +l.getAttribute('y2')}));
  }
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
  document.querySelectorAll('article').forEach(a => out.articles.push({id: a.id,
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
    check(facts["plot"] is not None, "the page has a roofline")
    check(len(facts["points"]) == len(expect) and set(pts) == set(expect),
          "one point per measured kernel: %d points, %d kernels measured of %d" % (len(facts["points"]), len(expect),
                                                                                  kernels_n))
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
        if abs(p["cx"] - X(ai)) > 0.6 or abs(p["cy"] - Y(gf)) > 0.6 or name not in p["title"]:
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
    check(not any(k.startswith("tensor") for k in ceil) or dev.get("peak_tensor_flop_per_s"),
          "no tensor roof without device.peak_tensor_flop_per_s")
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
        arts = facts["articles"]
        check(len(arts) == kernels_n and all(len(x["bands"]) == 5 for x in arts),
              "five bands for each of the %d kernels" % kernels_n)
        wrong = []
        for i, k in enumerate(truth["kernels"]):
            v = k["diagnosis"]
            if 1 <= v["step"] <= 5 and v["cause"] != "not_assessed" and i < len(arts):
                band = [b for b in arts[i]["bands"] if b["step"] == v["step"]]
                if not band or band[0]["state"] != "catches":
                    wrong.append("%s: step %d %s but band %s" % (k["name"], v["step"], v["cause"],
                                                                 band[0]["state"] if band else "missing"))
            if v["step"] == 0 and v["cause"] in ("at_roof", "latency_bound") and i < len(arts):
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
            if i >= len(arts):
                break
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
