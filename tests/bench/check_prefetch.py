#!/usr/bin/env python3
"""Counts the prefetch instructions in the engine's lottery_sets::take_planned (objdump on the
models library): the lottery prefetches the fields of a user it will draw 8 draws on.

gcc 12's ipa-modref pass ignores a prefetch's effect, finds a helper made only of prefetches
free of side effects and deletes its calls where it was not inlined (users::prefetch then
compiles to nothing, and the lottery pays a cache miss per drawn user). Both helpers are
always inlined.

Exit 0 when the function holds at least 2 (the entry time; the class and list bytes, side by
side), 1 otherwise (printing its disassembly), 77 (skipped) where objdump is missing.
"""
import argparse
import shutil
import subprocess
import sys

FUNCTION = "_ZN8waitroom6models12lottery_sets12take_plannedEv"  # lottery_sets::take_planned()
EXPECTED = 2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--library", required=True, help="the waitroom_models library")
    args = ap.parse_args()
    if shutil.which("objdump") is None:
        print("check_prefetch: objdump not found (binutils): skipped")
        return 77
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "--disassemble=" + FUNCTION,
                          args.library], check=True, capture_output=True, text=True).stdout
    body = [l for l in out.splitlines() if l.startswith(" ") and ":\t" in l]
    if not body:
        print("%s: function %s not found in the disassembly" % (args.library, FUNCTION))
        return 1
    got = sum(1 for l in body if "\tprefetch" in l)
    print("%s: %d prefetch instructions (at least %d expected)" % (FUNCTION, got, EXPECTED))
    if got < EXPECTED:
        print("\n".join(body))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
