#!/usr/bin/env python3
"""Counts the prefetch instructions in the probe functions of prefetch_probe (objdump).

Exit 0 when each function holds as many as expected, 1 otherwise (printing what it found).
"""
import argparse
import subprocess
import sys

EXPECTED = {"waitroom_probe_user_prefetch": 3, "waitroom_probe_table_prefetch": 1}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--probe", required=True, help="the prefetch_probe executable")
    args = ap.parse_args()
    failed = False
    for name, want in EXPECTED.items():
        out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "--disassemble=" + name,
                              args.probe], check=True, capture_output=True, text=True).stdout
        body = [l for l in out.splitlines() if l.startswith(" ") and ":\t" in l]
        if not body:
            print("%s: function %s not found in the disassembly" % (args.probe, name))
            failed = True
            continue
        got = sum(1 for l in body if "\tprefetch" in l)
        print("%s: %d prefetch instructions (expected %d)" % (name, got, want))
        if got != want:
            print("\n".join(body))
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
