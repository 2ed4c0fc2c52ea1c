#!/usr/bin/env python3
"""A/B of two waitroom_bench binaries (two commits), in alternating runs.

Each round runs every workload once with each binary, the order of the two binaries
alternating from round to round (load on a shared machine drifts between rounds much more
than within one). Prints each workload's median rate for both, the median of the per-round
ratios new/old, and bytes per waiting user by the model's count for both.

Both the old bench (before the in-run baselines: `--runs N --only NAME`) and the new one
(`--rounds N --only NAME`) print a table whose rows start with the workload's name and
whose third column is customers/s; the model's bytes per waiting user is the 6th column
of the old table and the 7th of the new (the new one adds baseline columns).
"""
import argparse
import os
import statistics
import subprocess
import sys


def run_once(binary, workload, scale, new_format):
    cmd = [binary, "--runs", "1", "--only", workload, "--scale", str(scale)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        cols = line.split()
        if cols and cols[0] == workload:
            return float(cols[2]), float(cols[6] if new_format else cols[5])
    sys.exit("ab.py: no row for %s in the output of %s:\n%s" % (workload, " ".join(cmd), out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="waitroom_bench of the baseline commit")
    ap.add_argument("--new", required=True, help="waitroom_bench of the commit measured")
    ap.add_argument("--old-format", choices=["old", "new"], default="old",
                    help="table layout of the --old binary (old: before in-run baselines)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--only", default="priority_mm1,flash_crowd")
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
                new_format = who == "new" or a.old_format == "new"
                got[who] = run_once(binary, w, a.scale, new_format)
                rates[w][who].append(got[who][0])
                bytes_[w][who] = got[who][1]
            ratios[w].append(got["new"][0] / got["old"][0])
        print("round %d/%d done" % (r + 1, a.rounds), file=sys.stderr, flush=True)
    print("%-16s %14s %14s %10s %10s %12s %12s" % ("workload", "old cust/s", "new cust/s",
                                                  "ratio", "min..max", "B/wait old",
                                                  "B/wait new"))
    for w in workloads:
        q = ratios[w]
        print("%-16s %14.0f %14.0f %10.3f %4.2f..%4.2f %12.1f %12.1f" % (
            w, statistics.median(rates[w]["old"]), statistics.median(rates[w]["new"]),
            statistics.median(q), min(q), max(q), bytes_[w]["old"], bytes_[w]["new"]))
    print("ratio: new/old, median of %d per-round ratios (the order alternates per round)%s"
          % (a.rounds, "; pinned to CPU %d" % cpu if cpu >= 0 else ""))


if __name__ == "__main__":
    main()
