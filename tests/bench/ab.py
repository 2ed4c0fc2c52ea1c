#!/usr/bin/env python3
"""A/B of two waitroom_bench binaries (two commits), in alternating runs.

Each round runs every workload once with each binary, the order of the two binaries
alternating from round to round (load on a shared machine drifts between rounds much more
than within one). Prints each workload's median rate for both, the median of the per-round
ratios new/old, and bytes per waiting user by the model's count for both.

Both the old bench (before the in-run baselines: `--runs N --only NAME`) and the new one
(`--rounds N --only NAME`) print a table whose header starts with "workload" and whose
rows start with the workload's name. Columns are found by their header, not by position
(the new bench's columns changed more than once): customers/s, and the model's bytes per
waiting user ("bytes/waiting" in the old table, "B/wait mdl" in the new).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys


def column(header, row, labels):
    """The value in `row` under the first of `labels` found in `header`. Numeric columns are
    right-aligned under right-aligned labels, so the value ends where its label ends."""
    for label in labels:
        # The label alone, not inside a longer one ("ratio" in "ratio CPU").
        m = re.search(r"(?<!\S)" + re.escape(label) + r"(?!\S)", header)
        if not m:
            continue
        pos = 0
        for token in row.split():
            pos = row.index(token, pos) + len(token)
            if pos == m.end():
                try:
                    return float(token)
                except ValueError:
                    sys.exit("ab.py: '%s' under '%s' is not a number:\n%s\n%s"
                             % (token, label, header, row))
        return None
    return None


def run_once(binary, workload, scale):
    cmd = [binary, "--runs", "1", "--only", workload, "--scale", str(scale)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    header = None
    for line in out.splitlines():
        cols = line.split()
        if cols and cols[0] == "workload":
            header = line
        elif cols and cols[0] == workload and header is not None:
            rate = column(header, line, ["customers/s"])
            bytes_per_user = column(header, line, ["B/wait mdl", "bytes/waiting"])
            if rate is None or bytes_per_user is None:
                sys.exit("ab.py: no customers/s or bytes-per-waiting-user column under the "
                         "header of %s:\n%s\n%s" % (" ".join(cmd), header, line))
            return rate, bytes_per_user
    sys.exit("ab.py: no row for %s in the output of %s:\n%s" % (workload, " ".join(cmd), out))


def user_seconds(binary, workload, scale, new_format):
    """User CPU seconds of one process that runs only `workload` (the new bench's --once;
    the old one runs a single --only workload in its own process). The kernel's time is
    left out on purpose: on this VM the page faults of the same binary cost 0.06 s or
    0.5 s of system time from one run to the next (the host's memory, not the code)."""
    if new_format:
        cmd = [binary, "--once", workload, "--scale", str(scale)]
    else:
        cmd = [binary, "--runs", "1", "--only", workload, "--scale", str(scale)]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit("ab.py: %s failed (status %d)" % (" ".join(cmd), status))
    return usage.ru_utime


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="waitroom_bench of the baseline commit")
    ap.add_argument("--new", required=True, help="waitroom_bench of the commit measured")
    ap.add_argument("--old-format", choices=["old", "new"], default="old",
                    help="the --old binary's options (old: before the in-run baselines, "
                         "--runs and no --once); only --clock user depends on it")
    ap.add_argument("--new-format", choices=["old", "new"], default="new",
                    help="the --new binary's options (old: an A/A run of an old commit)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--only", default="priority_mm1,flash_crowd")
    ap.add_argument("--clock", choices=["wall", "user"], default="wall",
                    help="wall: the benches' own customers/s (measured region, wall clock); "
                         "user: user CPU seconds of a process running only the workload "
                         "(ratio old/new, so above 1 is faster as well)")
    ap.add_argument("--cpu", type=int, default=None,
                    help="pin both binaries to this CPU (default: the last one online; -1: "
                         "no pinning)")
    a = ap.parse_args()
    # On this 2-vCPU machine the same run takes 1.1 s on CPU 1 and 1.4-1.7 s on CPU 0, so
    # unpinned pairs measured which CPU each run landed on (ratios 0.67..1.47 on an idle
    # machine); pinned, the same pairs agree within a few percent.
    cpus = sorted(os.sched_getaffinity(0))
    cpu = cpus[-1] if a.cpu is None else a.cpu
    if cpu >= 0:
        os.sched_setaffinity(0, {cpu})
        print("ab.py: both binaries pinned to CPU %d" % cpu, file=sys.stderr)
    workloads = [w for w in a.only.split(",") if w]
    rates = {w: {"old": [], "new": []} for w in workloads}
    ratios = {w: [] for w in workloads}
    bytes_ = {w: {} for w in workloads}
    for r in range(a.rounds):
        for w in workloads:
            order = ["old", "new"] if r % 2 == 0 else ["new", "old"]
            got = {}
            for who in order:
                binary = a.old if who == "old" else a.new
                new_format = (a.new_format if who == "new" else a.old_format) == "new"
                if a.clock == "wall":
                    got[who] = run_once(binary, w, a.scale)
                else:  # a rate per user CPU second, so the ratio reads the same way
                    got[who] = (1.0 / user_seconds(binary, w, a.scale, new_format), 0.0)
                rates[w][who].append(got[who][0])
                bytes_[w][who] = got[who][1]
            ratios[w].append(got["new"][0] / got["old"][0])
        print("round %d/%d done" % (r + 1, a.rounds), file=sys.stderr, flush=True)
    print("%-16s %14s %14s %10s %10s %12s %12s" % ("workload", "old rate", "new rate",
                                                  "ratio", "min..max", "B/wait old",
                                                  "B/wait new"))
    for w in workloads:
        q = ratios[w]
        print("%-16s %14.6g %14.6g %10.3f %4.2f..%4.2f %12.1f %12.1f" % (
            w, statistics.median(rates[w]["old"]), statistics.median(rates[w]["new"]),
            statistics.median(q), min(q), max(q), bytes_[w]["old"], bytes_[w]["new"]))
    print("ratio: new/old, median of %d per-round ratios (the order alternates per round)%s%s"
          % (a.rounds, "; pinned to CPU %d" % cpu if cpu >= 0 else "",
             "; user CPU time: the rate columns are runs per user CPU second, no bytes"
             if a.clock == "user" else ""))


if __name__ == "__main__":
    main()
