#!/usr/bin/env python3
"""Determinism at scale: for three shipped scenarios and 100 seeds, `run
--replications R --format json` is byte-identical with 1, 2 and 7 threads.

usage: test_determinism.py --binary build/cli/waitroom --source-dir . [--seeds N]"""

import argparse
import hashlib
import os
import subprocess
import sys

SCENARIOS = [
    # (file, overrides that keep each run short; the scenario's own features stay)
    ("priority_mm1.json", ["--set", "/run/horizon_s=2000"]),
    ("clinic_ratio.json", ["--set", "/arrivals/segments/0/duration_s=120"]),
    ("flash_lottery.json", ["--set", "/arrivals/backlog_users=2000"]),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--replications", type=int, default=7)
    a = ap.parse_args()
    bad = 0
    runs = 0
    for name, sets in SCENARIOS:
        path = os.path.join(a.source_dir, "scenarios", name)
        for seed in range(1, a.seeds + 1):
            digests = {}
            for threads in (1, 2, 7):
                r = subprocess.run([a.binary, "run", path, *sets, "--seed", str(seed),
                                    "--replications", str(a.replications), "--threads", str(threads),
                                    "--format", "json", "--quiet"],
                                   capture_output=True, timeout=600)
                runs += 1
                if r.returncode != 0:
                    print("%s seed %d threads %d: exit %d: %s" % (name, seed, threads, r.returncode,
                                                                  r.stderr.decode()), file=sys.stderr)
                    bad += 1
                    continue
                digests[threads] = hashlib.sha256(r.stdout).hexdigest()
            if len(set(digests.values())) != 1:
                print("%s seed %d: results differ by thread count: %s" % (name, seed, digests),
                      file=sys.stderr)
                bad += 1
    print("determinism: %d runs, %d problems" % (runs, bad))
    sys.exit(1 if bad else 0)


main()
