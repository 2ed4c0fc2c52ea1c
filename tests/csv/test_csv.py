#!/usr/bin/env python3
"""The CSV outputs (run, run --replications, --series, compare, check) read back with Python's
csv module, each figure equal to the one in the same command's JSON.

usage: test_csv.py --binary build/cli/waitroom --source-dir ."""

import argparse
import csv
import io
import json
import math
import os
import subprocess
import sys
import tempfile

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def waitroom(binary, *args):
    r = subprocess.run([binary, *args], capture_output=True, text=True, timeout=600)
    if r.returncode not in (0, 1):
        raise SystemExit("waitroom %s exited %d: %s" % (" ".join(args), r.returncode, r.stderr))
    return r.stdout


def rows(text):
    return list(csv.DictReader(io.StringIO(text, newline="")))


def same(a, b):
    if b is None:
        return a == ""
    return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--source-dir", required=True)
    args = ap.parse_args()
    w = args.binary
    sc = lambda n: os.path.join(args.source_dir, "scenarios", n)  # noqa: E731
    tmp = tempfile.mkdtemp(prefix="waitroom-csv-")

    # run: one row per class and "all", every statistic as in the JSON. A class name with a
    # double quote checks the quoting.
    named = ["--set", '/classes/0/name=v"ip', "--set", '/sla/targets/0/class=v"ip']
    series = os.path.join(tmp, "series.csv")
    text = waitroom(w, "run", sc("clinic.json"), *named, "--format", "csv", "--series", series)
    j = json.loads(waitroom(w, "run", sc("clinic.json"), *named, "--format", "json"))
    got = rows(text)
    expect([r["class"] for r in got] == [c["name"] for c in j["classes"]] + ["all"],
           "run: classes %s" % [r["class"] for r in got])
    expect(got[0]["class"] == 'v"ip', "run: quoted class name read back as %r" % got[0]["class"])
    for r, c in zip(got, j["classes"] + [j["overall"]]):
        for k in ("arrived", "refused", "released", "abandoned", "waiting_at_end"):
            expect(int(r[k]) == c[k], "run: %s %s %s != %s" % (r["class"], k, r[k], c[k]))
        for k in ("mean", "stddev", "min", "p50", "p90", "p95", "p99", "p999", "max"):
            expect(same(r["wait_%s_s" % k], c["wait_s"][k]),
                   "run: %s wait %s %s != %s" % (r["class"], k, r["wait_%s_s" % k], c["wait_s"][k]))
    # --series: the queue-length samples.
    with open(series, newline="") as f:
        s = list(csv.DictReader(f))
    q = j["queue_length"]
    expect(len(s) == len(q["t_s"]) > 0, "series: %d rows for %d samples" % (len(s), len(q["t_s"])))
    for i, r in enumerate(s):
        expect(same(r["t_s"], q["t_s"][i]) and int(r["length"]) == q["length"][i],
               "series row %d" % i)
        expect(sum(int(r["waiting_" + c["name"]]) for c in j["classes"]) == q["length"][i],
               "series row %d: classes do not add up to the length" % i)
        expect(int(r["released_since_previous"]) == q["released_since_previous"][i],
               "series row %d released" % i)

    # run --replications: one row per class and metric.
    reps = rows(waitroom(w, "run", sc("clinic.json"), "--replications", "3", "--format", "csv"))
    rj = json.loads(waitroom(w, "run", sc("clinic.json"), "--replications", "3", "--format", "json"))
    by = {(r["class"], r["metric"]): r for r in reps}
    for c in rj["classes"] + [dict(rj["overall"], name="all")]:
        for m, v in c.items():
            if isinstance(v, dict) and "estimate" in v:
                r = by.get((c["name"], m))
                expect(r is not None and same(r["estimate"], v["estimate"])
                       and same(r["ci_low"], v["ci"][0]) and same(r["ci_high"], v["ci"][1]),
                       "replications: %s %s" % (c["name"], m))

    # compare: every variant, class and metric; the base has no difference.
    cargs = ["compare", sc("clinic_ratio.json"), "--replications", "3",
             "--variant", "even:/release/selection/weights=[15,15]"]
    cmp_rows = rows(waitroom(w, *cargs, "--format", "csv"))
    cj = json.loads(waitroom(w, *cargs, "--format", "json"))
    n = sum(1 for v in cj["variants"] for c in v["classes"] for m in c.values()
            if isinstance(m, dict) and "estimate" in m)
    expect(len(cmp_rows) == n > 0, "compare: %d rows, JSON has %d" % (len(cmp_rows), n))
    for r in cmp_rows:
        v = next(v for v in cj["variants"] if v["name"] == r["variant"])
        m = next(c for c in v["classes"] if c["class"] == r["class"])[r["metric"]]
        expect(same(r["estimate"], m["estimate"]), "compare: %s" % r)
        if "difference" in m:
            expect(same(r["difference"], m["difference"]["estimate"]), "compare diff: %s" % r)
        else:
            expect(r["variant"] == "base" and r["difference"] == "", "compare base: %s" % r)

    # check: one row per target, the verdict as in the JSON (and the exit code).
    chk = rows(waitroom(w, "check", sc("clinic.json"), sc("clinic_ratio.json"), "--format", "csv"))
    kj = json.loads(waitroom(w, "check", sc("clinic.json"), sc("clinic_ratio.json"),
                             "--format", "json"))
    targets = [(s["name"], t) for s in kj["scenarios"] for t in s["targets"]]
    expect(len(chk) == len(targets) > 0, "check: %d rows for %d targets" % (len(chk), len(targets)))
    for r, (name, t) in zip(chk, targets):
        expect(r["scenario"] == name and r["class"] == t["class"] and r["metric"] == t["metric"]
               and same(r["estimate"], t["estimate"]) and r["pass"] == str(t["pass"]).lower(),
               "check: %s" % r)
        expect(same(r["limit"], t.get("max", t.get("min"))), "check limit: %s" % r)

    for f in failures:
        print("FAILED " + f)
    print("%d passed, %d failed" % (0 if failures else 1, 1 if failures else 0))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
