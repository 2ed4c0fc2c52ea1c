#!/usr/bin/env python3
"""Renders an HTML report of every kind from the shipped scenarios and checks each in headless
Chromium: no console error or exception, no request leaving the file, every chart drew data
(points given and coloured pixels in its plot area), the 1M-user concert's report under 2 MB.
Saves a full-page PNG of each beside the reports (OUT_DIR/NAME.png). Then prints each to an A4
PDF (OUT_DIR/NAME.pdf) as the print dialog would and checks it: every chart at most the page's
printable width while printing and back to screen width after, every chart's
title in the PDF's text (pdftotext), a sane page count.

usage: check_reports.py --binary build/cli/waitroom --source-dir . --out-dir build/browser
       [--chromium /usr/bin/chromium] [--only NAME ...] [--copy-to docs/img/reports]
Exit 0 all good, 1 a check failed, 77 Chromium missing (ctest: skipped)."""

import argparse
import os
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

MAX_CONCERT_BYTES = 2 * 1024 * 1024
# A4 at 96 px per inch less 0.4 in margins each side: what a chart may span in print.
PRINTABLE_WIDTH_PX = int((8.27 - 2 * 0.4) * 96)
MAX_PAGES = 40
# Registered after the report's own listeners, so it sees the charts as they print.
RECORD_PRINT_WIDTHS = """(() => {
  const widths = () => Array.from(document.querySelectorAll('.chart canvas'),
                                  (c) => c.getBoundingClientRect().width);
  window.__printWidths = null; window.__afterWidths = null;
  window.addEventListener('beforeprint', () => { window.__printWidths = widths(); });
  window.addEventListener('afterprint', () => { window.__afterWidths = widths(); });
  return widths();
})()"""
TOTAL_TIMEOUT_S = 900
# Charts a report must have (title prefixes), besides every chart drawing data: the
# replications' queue series with bands, the canvas heat map, the abandoners' waits.
EXPECTED_CHARTS = {
    "replications": ["Queue length per class over time, mean of replications",
                     "Users released per"],
    "plan_2d": ["Feasible map over"],
    "run_polling": ["Waits of the users who gave up"],
    "run_backend": ["Waits of the users who gave up"],
    "fit": ["Arrivals per minute against the fitted rate", "Patience of vip", "Patience of normal",
            "Waits of released users: the log against the fitted scenario"],
}
# Labels a report's charts must have drawn (each clear of the others: check_labels).
EXPECTED_LABELS = {"run_sla_limits": ["SLA vip p95 ≤ 60 s", "SLA normal p95 ≤ 20 min"]}
# Reports that must show these cells (a CSS selector and the least count), and never "nan".
EXPECT = {"sweep_undecided": ("td.undecided", 2)}


def reports(binary, src, out):
    """(name, commands producing OUT/name.html); a command is a list of arguments."""
    sc = lambda name: os.path.join(src, "scenarios", name)  # noqa: E731
    o = lambda name: os.path.join(out, name)  # noqa: E731
    w = binary
    plan_knob = ["--knob", "/release/selection/weights/0", "--range", "1:29:2",
                 "--tie", "/release/selection/weights/1=30-x", "--set", "/sla/replications=5"]
    return [
        # A single run, written directly with --html.
        ("run_polling", [[w, "run", sc("concert_polling.json"), "--format", "json",
                          "--out", o("run_polling.json"), "--html", o("run_polling.html")]]),
        ("run_concert", [[w, "run", sc("concert_presale.json"), "--format", "json",
                          "--out", o("run_concert.json"), "--html", o("run_concert.html")]]),
        ("run_backend", [[w, "run", sc("clinic_degrading_backend.json"), "--out",
                          o("run_backend.json")],
                         [w, "report", o("run_backend.json"), "--out", o("run_backend.html")]]),
        ("run_stock", [[w, "run", sc("flash_sale_stock.json"), "--out", o("run_stock.json")],
                       [w, "report", o("run_stock.json")]]),
        # Replications, from the saved JSON.
        ("replications", [[w, "run", sc("clinic_ratio.json"), "--replications", "8",
                           "--out", o("replications.json")],
                          [w, "report", o("replications.json")]]),
        ("compare", [[w, "compare", sc("clinic_ratio.json"), "--replications", "6",
                      "--variant", "15to15:/release/selection/weights=[15,15]",
                      "--variant", "fifo:/queue/policy=fifo",
                      "--out", o("compare.json"), "--html", o("compare.html")]]),
        ("sweep", [[w, "sweep", sc("clinic_ratio_plan.json"), "--vary",
                    "/release/selection/weights/0=2:26:4", "--replications", "4", "--quiet",
                    "--out", o("sweep.json")],
                   [w, "report", o("sweep.json")]]),
        ("plan", [[w, "plan", sc("clinic_ratio_plan.json"), *plan_knob, "--quiet",
                   "--format", "json", "--out", o("plan.json"), "--html", o("plan.html")]]),
        ("plan_2d", [[w, "plan", sc("clinic_ratio_plan.json"), "--knob",
                      "/release/selection/weights/0", "--range", "4:16:4", "--knob",
                      "/release/batch", "--range", "26:34:4", "--set", "/sla/replications=4",
                      "--quiet", "--format", "json", "--out", o("plan_2d.json")],
                     [w, "report", o("plan_2d.json")]]),
        # Undecided targets (one user a tick, a 100 s horizon: most normal users still wait):
        # grey "?" cells, neither pass nor fail (EXPECT below).
        ("sweep_undecided", [[w, "sweep", sc("clinic.json"), "--set", "/run/horizon_s=100",
                              "--vary", "/release/batch=1:41:20", "--replications", "2",
                              "--quiet", "--out", o("sweep_undecided.json")],
                             [w, "report", o("sweep_undecided.json")]]),
        # SLA limits on p95 that collide with the percentile dots (60 s) and lie far beyond
        # the waits (20 min): every line drawn, no label over another (check_labels).
        ("run_sla_limits", [[w, "run", sc("clinic_ratio.json"), "--set",
                             '/sla/targets=[{"class":"vip","metric":"p95_wait_s","max":60},'
                             '{"class":"normal","metric":"p95_wait_s","max":1200}]',
                             "--format", "json", "--out", o("run_sla_limits.json"),
                             "--html", o("run_sla_limits.html")]]),
        # A fit of the program's own log, checked against the fitted scenario's runs.
        ("fit", [[w, "run", sc("last_drop.json"), "--trace", o("last_drop.trace"), "--quiet"],
                 [w, "fit", o("last_drop.trace"), "--check", "--set",
                  "/classes/1/offset_ms=60000", "--html", o("fit.html")]]),
        # A tighter VIP limit (1 s) fails in the clinic and holds in the dual queue: both colours.
        ("check", [[w, "check", sc("clinic.json"), sc("clinic_ratio.json"), "--set",
                    "/sla/targets/0/max=1", "--format", "json", "--out", o("check.json"),
                    "--html", o("check.html")]]),
    ]


def check_page(browser, html, png):
    """Opens html; returns the report's self-check and every problem found."""
    session = browser.open("file://" + os.path.abspath(html))
    browser.last_session = session
    checks = browser.evaluate(session, "window.waitroomSelfCheck ? "
                              "window.waitroomSelfCheck() : null")
    browser.screenshot(session, png)
    problems = browser.problems(session)
    if checks is None:
        problems.append("the report's script did not run (no waitroomSelfCheck)")
    elif not checks:
        problems.append("no chart or table drawn")
    else:
        for c in checks:
            if c["points"] <= 0 or c["pixels"] <= 0:
                problems.append("chart '%s' drew no data (%d points, %d coloured pixels)"
                                % (c["title"], c["points"], c["pixels"]))
    problems += check_labels(checks)
    return checks, problems


def overlap(a, b):
    return not (a["x"] + a["w"] <= b["x"] or b["x"] + b["w"] <= a["x"] or
                a["y"] + a["h"] <= b["y"] or b["y"] + b["h"] <= a["y"])


def check_labels(checks):
    """Every SLA (or other) line a chart was given is drawn, and no two labels overlap."""
    problems = []
    for c in checks or []:
        for line in c.get("undrawn") or []:
            problems.append("chart '%s': line '%s' outside its axes, not drawn"
                            % (c["title"], line))
        labels = c.get("labels") or []
        for i, a in enumerate(labels):
            for b in labels[i + 1:]:
                if overlap(a, b):
                    problems.append("chart '%s': labels '%s' and '%s' overlap"
                                    % (c["title"], a["text"], b["text"]))
    return problems


def check_print(browser, session, checks, pdf):
    """Prints the open report to pdf; returns the problems found."""
    problems = []
    before = browser.evaluate(session, RECORD_PRINT_WIDTHS)
    browser.print_pdf(session, pdf)
    during = browser.evaluate(session, "window.__printWidths")
    after = browser.evaluate(session, "window.__afterWidths")
    if during is None:
        problems.append("print: beforeprint never fired")
    else:
        wide = [w for w in during if w > PRINTABLE_WIDTH_PX]
        if wide:
            problems.append("print: %d chart(s) wider than the page (%s px > %d px)"
                            % (len(wide), ", ".join("%.0f" % w for w in wide),
                               PRINTABLE_WIDTH_PX))
    if after is not None and before and after != before:
        problems.append("print: charts not back to screen width after printing (%s, were %s)"
                        % (after, before))
    with open(pdf, "rb") as f:
        head = f.read(5)
    if head != b"%PDF-":
        return problems + ["print: %s is not a PDF" % pdf]
    info = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True, timeout=60)
    pages = [int(line.split()[1]) for line in info.stdout.splitlines()
             if line.startswith("Pages:")]
    if not pages or not 1 <= pages[0] <= MAX_PAGES:
        problems.append("print: page count %s outside 1..%d" % (pages, MAX_PAGES))
    text = subprocess.run(["pdftotext", "-raw", pdf, "-"], capture_output=True, text=True,
                          timeout=60).stdout
    flat = " ".join(text.split())
    for c in checks or []:  # a table's title is the script's label, not printed text
        if not c["table"] and " ".join(c["title"].split()) not in flat:
            problems.append("print: the title '%s' is not in the PDF's text" % c["title"])
    return problems


def self_test(browser, good_html, out_dir):
    """The checks themselves: a good report passes; the same report with a console error, a
    request to the network, or every series emptied must each be caught."""
    with open(good_html, encoding="utf-8") as f:
        page = f.read()
    marker = '<script type="application/json" id="waitroom-data">'
    broken = {
        "console_error": page.replace("<body>", "<body><script>console.error('boom')</script>", 1),
        "network": page.replace("<body>", "<body><img src=\"http://127.0.0.1:9/x.png\">", 1),
        # Every histogram bucket and sample emptied: the charts still build, with nothing in them.
        "empty_data": page.replace(marker, marker.replace("waitroom-data", "waitroom-unused") +
                                   "{}</script>" + marker, 1).replace(
            "<script>\n", "<script>\n(function(){const e=document.getElementById('waitroom-data');"
            "const d=JSON.parse(e.textContent);for(const c of d.result.classes.concat([d.result.overall]))"
            "c.wait_histogram.buckets=[];const q=d.result.queue_length;for(const k of Object.keys(q.by_class))"
            "q.by_class[k]=q.by_class[k].map(()=>null);q.length=q.length.map(()=>null);"
            "q.released_since_previous=q.released_since_previous.map(()=>null);"
            "e.textContent=JSON.stringify(d);})();\n", 1),
        # Charts that keep their screen width in print (no beforeprint resize): cut off.
        "no_print_resize": page.replace("window.addEventListener('beforeprint'",
                                        "window.addEventListener('waitroom-never'", 1),
    }
    failures = []
    _, problems = check_page(browser, good_html, os.path.join(out_dir, "self_test_good.png"))
    if problems:
        failures.append("self-test: the good report was flagged: %s" % problems)
    for name, text in broken.items():
        path = os.path.join(out_dir, "self_test_%s.html" % name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        checks, problems = check_page(browser, path,
                                      os.path.join(out_dir, "self_test_%s.png" % name))
        if name == "no_print_resize":
            problems = check_print(browser, browser.last_session, checks,
                                   os.path.join(out_dir, "self_test_%s.pdf" % name))
        if not problems:
            failures.append("self-test: a report with %s was not caught" % name)
        else:
            print("self-test %-14s caught: %s" % (name, problems[0]))
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--copy-to", help="also copy each PNG here (docs/img/reports)")
    args = ap.parse_args()
    if not os.access(args.chromium, os.X_OK):
        print("check_reports: Chromium not found (scripts/test installs Debian's chromium)")
        return 77
    if not shutil.which("pdftotext") or not shutil.which("pdfinfo"):
        print("check_reports: pdftotext/pdfinfo not found (scripts/test installs poppler-utils)")
        return 77
    os.makedirs(args.out_dir, exist_ok=True)

    def too_long(signum, frame):
        raise TimeoutError("the browser test took longer than %d s" % TOTAL_TIMEOUT_S)

    signal.signal(signal.SIGALRM, too_long)
    signal.alarm(TOTAL_TIMEOUT_S)
    failures = []
    todo = [r for r in reports(args.binary, args.source_dir, args.out_dir)
            if not args.only or r[0] in args.only]
    for name, commands in todo:
        for cmd in commands:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            if r.returncode not in (0, 1):  # check exits 1 when an SLA fails: still a report
                failures.append("%s: %s exited %d: %s" % (name, " ".join(cmd[1:3]), r.returncode,
                                                          r.stderr.strip()))
    with cdp.Browser(args.chromium, timeout_s=60) as browser:
        good = os.path.join(args.out_dir, "run_stock.html")
        if os.path.exists(good):
            failures += self_test(browser, good, args.out_dir)
        for name, _ in todo:
            html = os.path.join(args.out_dir, name + ".html")
            if not os.path.exists(html):
                failures.append("%s: no report written" % name)
                continue
            size = os.path.getsize(html)
            if name == "run_concert" and size > MAX_CONCERT_BYTES:
                failures.append("%s: %d bytes, more than 2 MB" % (name, size))
            png = os.path.join(args.out_dir, name + ".png")
            checks, problems = check_page(browser, html, png)
            pdf = os.path.join(args.out_dir, name + ".pdf")
            if name in EXPECT:
                selector, least = EXPECT[name]
                found = browser.evaluate(browser.last_session,
                                         "document.querySelectorAll('%s').length" % selector)
                if not found or found < least:
                    problems.append("%d '%s' cells, expected at least %d" % (found or 0, selector,
                                                                             least))
                text = browser.evaluate(browser.last_session, "document.body.innerText")
                if "nan" in (text or "").lower().split():
                    problems.append("'nan' in the page's text")
            problems += check_print(browser, browser.last_session, checks, pdf)
            drawn = [l["text"] for c in checks or [] for l in c.get("labels") or []]
            for want in EXPECTED_LABELS.get(name, []):
                if want not in drawn:
                    problems.append("label '%s' not drawn" % want)
            for want in EXPECTED_CHARTS.get(name, []):
                if not any(not c["table"] and c["title"].startswith(want) and c["points"] > 0
                           and c["pixels"] > 0 for c in checks or []):
                    problems.append("no chart '%s...' with drawn data" % want)
            charts = sum(1 for c in checks or [] if not c["table"])
            print("%-14s %7d bytes  %2d charts  %s  %s" % (
                name, size, charts, "ok" if not problems else "FAILED", png))
            failures += ["%s: %s" % (name, p) for p in problems]
            if args.copy_to and not problems:
                os.makedirs(args.copy_to, exist_ok=True)
                shutil.copy(png, os.path.join(args.copy_to, name + ".png"))
    signal.alarm(0)
    for f in failures:
        print("FAILED " + f)
    print("%d passed, %d failed" % (len(todo) - len({f.split(":")[0] for f in failures}),
                                     len({f.split(":")[0] for f in failures})))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
