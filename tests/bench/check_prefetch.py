#!/usr/bin/env python3
"""Counts the prefetch instructions in the probe functions of prefetch_probe and in the
engine's queues::take_planned (objdump on the models library).

Exit 0 when each function holds as many as expected, 1 otherwise (printing what it found),
77 (skipped) where objdump is missing.
"""
import argparse
import shutil
import subprocess
import sys

# name -> (file argument, least number of prefetch instructions)
PROBES = {"waitroom_probe_user_prefetch": ("probe", 3),
          "waitroom_probe_table_prefetch": ("probe", 1),
          # the lottery's take_planned: the drawn user's entry time, class and list
          "_ZN8waitroom6models6queues12take_plannedEl": ("library", 3)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--probe", required=True, help="the prefetch_probe executable")
    ap.add_argument("--library", required=True, help="the waitroom_models library")
    args = ap.parse_args()
    if shutil.which("objdump") is None:
        print("check_prefetch: objdump not found (binutils): skipped")
        return 77
    failed = False
    for name, (where, want) in PROBES.items():
        path = getattr(args, where)
        out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "--disassemble=" + name,
                              path], check=True, capture_output=True, text=True).stdout
        body = [l for l in out.splitlines() if l.startswith(" ") and ":\t" in l]
        if not body:
            print("%s: function %s not found in the disassembly" % (path, name))
            failed = True
            continue
        got = sum(1 for l in body if "\tprefetch" in l)
        print("%s: %d prefetch instructions (at least %d expected)" % (name, got, want))
        if got < want:
            print("\n".join(body))
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
