#!/usr/bin/env python3
"""The instruction-count gate (ctest label `perf`, docs/perf.md).

Runs workloads of waitroom_bench once each under valgrind's callgrind, counting only the
simulation (`--toggle-collect=*measured_region*`: no start-up, no scenario parsing), and
divides by the customers served. Instruction counts do not depend on machine load, so a 5%
regression is visible on a busy 2-core machine where wall-clock times move by 2x.

  instructions.py --bench build/tests/bench/waitroom_bench            # check (the ctest)
  instructions.py --bench ... --record                                # re-record the figures
  instructions.py --bench ... --all                                   # every workload, print

The committed figures (tests/bench/instructions.json) depend on the compiler and its flags:
they were recorded with a Release build by the g++ named in the file. Re-recording is its
own commit saying why (scripts/bench --record-instructions).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_JSON = os.path.join(HERE, "instructions.json")
# NAME@SCALE runs NAME at that scale instead of the file's: the flash crowd at 10% too,
# where a millisecond holds ~17 tied arrivals (2 at 1%), so the cost of ordering ties shows
# (at 1% the tie runs' changes moved it 5%, at 10% 17%).
GATED = ["priority_mm1", "flash_crowd", "flash_crowd@0.1"]
BASELINES = ["plain_mm1", "pbds_flash"]
ALL = GATED + BASELINES + [
    "flash_polling", "flash_polling_counts", "flash_strict", "flash_ratio",
    "flash_probabilistic", "flash_aging", "flash_temp_vip", "flash_sku_scheduler",
    "flash_lottery", "flash_lottery_by_wait"]


def measure(bench, valgrind, name, scale):
    """Instructions executed inside measured_region, and the customers served."""
    with tempfile.TemporaryDirectory() as tmp:
        out_file = os.path.join(tmp, "callgrind.out")
        cmd = [valgrind, "--tool=callgrind", f"--callgrind-out-file={out_file}",
               "--toggle-collect=*measured_region*", "--quiet",
               bench, "--once", name, "--scale", str(scale)]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            sys.exit(f"instructions.py: {' '.join(cmd)} exited {p.returncode}:\n{p.stderr}")
        m = re.search(r"customers=(\d+)", p.stdout)
        if not m or int(m.group(1)) == 0:
            sys.exit(f"instructions.py: {name}: no 'customers=N' (N > 0) in the output: "
                     f"{p.stdout!r}")
        customers = int(m.group(1))
        instructions = None
        with open(out_file) as f:
            for line in f:
                if line.startswith(("summary:", "totals:")):
                    instructions = int(line.split()[1])
        if not instructions:
            sys.exit(f"instructions.py: {name}: no instruction total in {out_file}")
        return instructions, customers


def compiler_version():
    try:
        return subprocess.run(["c++", "--version"], capture_output=True,
                              text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", required=True, help="path to waitroom_bench (Release build)")
    ap.add_argument("--valgrind", default="valgrind")
    ap.add_argument("--json", default=DEFAULT_JSON, help="committed figures")
    ap.add_argument("--build-type", default="Release",
                    help="CMAKE_BUILD_TYPE of --bench; the figures are for Release")
    ap.add_argument("--record", action="store_true", help="write the measured figures")
    ap.add_argument("--all", action="store_true", help="measure and print every workload")
    ap.add_argument("--only", help="comma-separated workloads (default: the gated ones)")
    args = ap.parse_args()

    if args.build_type != "Release":
        print(f"instructions.py: skipped: the committed figures are for a Release build, "
              f"this is {args.build_type or 'unset'}")
        return 77
    try:
        subprocess.run([args.valgrind, "--version"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        sys.exit(f"instructions.py: valgrind not found ('{args.valgrind}'); install the "
                 "Debian package valgrind (scripts/lib.sh test_packages)")

    committed = {}
    if os.path.exists(args.json):
        with open(args.json) as f:
            committed = json.load(f)
    scale = committed.get("scale", 0.01) if not args.record else 0.01
    tolerance = committed.get("tolerance", 0.05)
    names = (ALL if args.all else args.only.split(",") if args.only else GATED + BASELINES)

    measured = {}
    for name in names:
        workload, _, at = name.partition("@")
        ir, customers = measure(args.bench, args.valgrind, workload, float(at) if at else scale)
        measured[name] = round(ir / customers, 1)
        print(f"{name:<24} {ir:>14,} instructions {customers:>9,} customers "
              f"{measured[name]:>9.1f} per customer", flush=True)
    for w, b in (("priority_mm1", "plain_mm1"), ("flash_crowd", "pbds_flash")):
        if w in measured and b in measured:
            print(f"  {w} / {b}: {measured[w] / measured[b]:.2f}x the baseline's instructions")

    if args.record:
        figures = dict(committed.get("instructions_per_customer", {}))
        figures.update({k: v for k, v in measured.items()})
        out = {
            "what": "instructions per customer inside measured_region (valgrind callgrind), "
                    "waitroom_bench --once NAME --scale 0.01; gate: "
                    "tests/bench/instructions.py (ctest -L perf)",
            "compiler": compiler_version(),
            "build_type": "Release",
            "scale": scale,
            "tolerance": tolerance,
            "gated": GATED,
            "instructions_per_customer": figures,
        }
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
            f.write("\n")
        print(f"recorded {args.json}")
        return 0

    figures = committed.get("instructions_per_customer")
    if not figures:
        sys.exit(f"instructions.py: no committed figures in {args.json}; record them with "
                 "scripts/bench --record-instructions")
    failed = []
    for name in committed.get("gated", GATED):
        if name not in measured:
            continue
        if name not in figures:
            sys.exit(f"instructions.py: {args.json}: no figure for '{name}' under "
                     "instructions_per_customer")
        limit = figures[name] * (1 + tolerance)
        verdict = "ok" if measured[name] <= limit else "REGRESSION"
        print(f"{name:<24} {measured[name]:>9.1f} against committed {figures[name]:>9.1f} "
              f"(limit {limit:.1f}): {verdict}")
        if measured[name] > limit:
            failed.append(name)
        elif measured[name] < figures[name] * (1 - tolerance):
            print(f"  {name} is more than {tolerance:.0%} below the committed figure: record "
                  "the gain (scripts/bench --record-instructions) so the gate keeps it")
    if failed:
        print(f"FAILED: {', '.join(failed)} grew more than {tolerance:.0%} above "
              f"{args.json} (compiler there: {committed.get('compiler')}; here: "
              f"{compiler_version()})")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
