#!/usr/bin/env python3
"""Mutation testing: applies the one-line mutants of tests/mutants/mutants.txt one at a time
to a scratch copy of the sources, rebuilds incrementally and runs the quick test labels
(the header-only unit tests, then the unit label, then the validation label).

A mutant is killed when a test fails (or times out), survives when every test passes. A
pattern that no longer matches the file exactly once is an ERROR (never killed or survived):
the list is out of date. The working tree is never modified: mutants go into a copy under
the build folder, which is re-synced from the working tree at every start.

Exit code: 0 when every mutant is killed or a survivor known to be equivalent, 1 when an
unexplained mutant survives, 2 on an ERROR (stale pattern, a mutant that does not compile, or
a baseline that fails)."""
import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Mutant:
    ident: str
    path: str
    find: str = ""
    replace: str = ""
    breaks: str = ""
    equivalent: str = ""  # why a survivor is equivalent (documented), if it is
    line: int = 0


def parse(list_path: Path) -> list:
    """Records separated by blank lines:
        [id] path/of/file.cpp
        - the exact text to find (once in the file)
        + its replacement
        ? what the mutant breaks
        = why it is equivalent (only for known survivors)
    Lines starting with '#' are comments."""
    mutants, cur = [], None
    for n, raw in enumerate(list_path.read_text().splitlines(), 1):
        line = raw.rstrip("\n")
        if not line.strip():
            cur = None
            continue
        if line.startswith("#"):
            continue
        if line.startswith("["):
            ident, _, path = line[1:].partition("]")
            cur = Mutant(ident.strip(), path.strip(), line=n)
            mutants.append(cur)
            continue
        if cur is None or len(line) < 2 or line[1] != " " or line[0] not in "-+?=":
            sys.exit(f"{list_path}:{n}: expected '[id] file', '- find', '+ replace', '? breaks' "
                     f"or '= equivalent', found {line!r}")
        text = line[2:]
        key = {"-": "find", "+": "replace", "?": "breaks", "=": "equivalent"}[line[0]]
        setattr(cur, key, getattr(cur, key) + ("\n" if getattr(cur, key) else "") + text)
    for m in mutants:
        if not m.find or not m.breaks:
            sys.exit(f"{list_path}:{m.line}: mutant [{m.ident}] needs a '- find' and a '? breaks' line")
    ids = [m.ident for m in mutants]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        sys.exit(f"{list_path}: duplicate mutant ids: {', '.join(sorted(dup))}")
    return mutants


def sync_sources(repo: Path, scratch: Path) -> None:
    """Copies the working tree's tracked and untracked (not ignored) files into the scratch
    copy, touching only files whose content differs so incremental builds stay incremental."""
    files = subprocess.run(["git", "-C", str(repo), "ls-files", "-z", "--cached", "--others",
                            "--exclude-standard"], check=True, capture_output=True).stdout
    wanted = {f for f in files.decode().split("\0") if f and (repo / f).is_file()}
    for rel in wanted:
        src, dst = repo / rel, scratch / rel
        if dst.is_file() and filecmp.cmp(src, dst, shallow=False):
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
        os.utime(dst)  # newer than any object built from an older copy
    for dst in scratch.rglob("*"):
        if dst.is_file() and dst.relative_to(scratch).as_posix() not in wanted:
            dst.unlink()


def run(cmd, log, timeout=None) -> int:
    with open(log, "a") as f:
        f.write(f"\n$ {' '.join(cmd)}\n")
        f.flush()
        try:
            return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            f.write("(timed out)\n")
            return 124


@dataclass
class Stage:
    targets: list
    ctest_args: list = field(default_factory=list)  # run with ctest, or
    binary: str = ""  # run this test binary directly (a target ctest does not know)


def main() -> int:
    repo = Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", default=str(repo / "tests/mutants/mutants.txt"))
    ap.add_argument("--build-root", default=str(repo / "build-mutants"),
                    help="scratch sources (src/), build (build/) and logs (logs/)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--only", nargs="*", help="mutant ids to run (default: all)")
    ap.add_argument("--check", action="store_true",
                    help="only check that every pattern matches its file exactly once")
    args = ap.parse_args()

    mutants = parse(Path(args.list))
    if args.only:
        unknown = set(args.only) - {m.ident for m in mutants}
        if unknown:
            sys.exit(f"unknown mutant ids: {', '.join(sorted(unknown))}")
        mutants = [m for m in mutants if m.ident in args.only]
    root = Path(args.build_root)
    scratch, build, logs = root / "src", root / "build", root / "logs"
    for d in (scratch, build, logs):
        d.mkdir(parents=True, exist_ok=True)
    sync_sources(repo, scratch)

    # Check every pattern up front, against the unmutated sources.
    errors, runnable = [], []
    for m in mutants:
        f = scratch / m.path
        if not f.is_file():
            errors.append((m, f"file {m.path} not found"))
            continue
        count = f.read_text().count(m.find)
        if count != 1:
            errors.append((m, f"pattern found {count} times in {m.path} (expected once): "
                              f"{m.find!r}"))
            continue
        runnable.append(m)
    for m, why in errors:
        print(f"ERROR    [{m.ident}] {why}", flush=True)
    if args.check:
        print(f"{len(runnable)} patterns match, {len(errors)} errors")
        return 2 if errors else 0

    # The quick labels, cheapest first: a mutant killed by the unit tests skips the rest.
    # First the header-only unit tests linked against the engine alone: for a mutant in a
    # header they rebuild a few files where the unit tests rebuild the models.
    stages = [Stage(["mutant_header_tests"], binary="tests/mutant_header_tests"),
              Stage(["unit_tests"], ["-L", "unit"]),
              Stage(["validation_tests"], ["-L", "validation"])]
    # Not cli, golden or slow: they run the program for seconds to minutes, and at -O1 some
    # of the cli cases approach their timeouts. A mutant only they would catch needs a
    # unit or validation test.
    launcher = ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] if shutil.which("ccache") else []
    # Configured every time: the synced sources may add targets.
    # -O1: a header mutant recompiles most of the tree, and compiling dominates a run.
    if run(["cmake", "-S", str(scratch), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
            "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG", "-DWAITROOM_BUILD_BENCH=OFF",
            *launcher], logs / "configure.log") != 0:
        print(f"ERROR    configure failed: see {logs / 'configure.log'}")
        return 2

    def build_targets(targets, log) -> bool:
        cmd = ["cmake", "--build", str(build), f"-j{args.jobs}"]
        for t in targets:
            cmd += ["--target", t]
        return run(cmd, log) == 0

    def tests_pass(stage, log) -> bool:
        if stage.binary:  # the unit label's timeout, for the whole binary
            return run([str(build / stage.binary), "--gtest_brief=1",
                        "--gtest_filter=-Livelock.TheDefaultBound*"], log, timeout=60) == 0
        # Test timeouts come from the tests' own TIMEOUT properties; the outer limit only
        # guards against ctest itself hanging.
        return run(["ctest", "--test-dir", str(build), f"-j{args.jobs}", "--stop-on-failure",
                    "--output-on-failure", *stage.ctest_args], log, timeout=1800) == 0

    t0 = time.monotonic()
    base_log = logs / "baseline.log"
    base_log.write_text("")
    for stage in stages:
        if not build_targets(stage.targets, base_log) or not tests_pass(stage, base_log):
            print(f"ERROR    the unmutated sources fail {' '.join(stage.ctest_args) or stage.binary}: "
                  f"see {base_log}")
            return 2
    print(f"baseline passes ({time.monotonic() - t0:.0f} s)", flush=True)

    killed, survived = [], []
    # One file at a time (fewer rebuilds), sources before headers (a header mutant
    # recompiles everything that includes it).
    runnable.sort(key=lambda m: (not m.path.endswith(".cpp"), m.path))
    for i, m in enumerate(runnable, 1):
        f = scratch / m.path
        original = f.read_text()
        log = logs / f"{m.ident}.log"
        log.write_text(f"[{m.ident}] {m.path}\n- {m.find}\n+ {m.replace}\n? {m.breaks}\n")
        start = time.monotonic()
        verdict, by = "survived", ""
        try:
            f.write_text(original.replace(m.find, m.replace, 1))
            for stage in stages:
                if not build_targets(stage.targets, log):
                    verdict = "error"
                    break
                if not tests_pass(stage, log):
                    verdict, by = "killed", " ".join(stage.ctest_args) or stage.binary
                    break
        finally:
            f.write_text(original)
        secs = time.monotonic() - start
        if verdict == "error":
            errors.append((m, "the mutant does not compile"))
            print(f"ERROR    [{m.ident}] {m.path}: the mutant does not compile (see {log})",
                  flush=True)
        elif verdict == "killed":
            killed.append(m)
            print(f"killed   [{m.ident}] {m.path} by {by} ({secs:.0f} s)", flush=True)
        else:
            survived.append(m)
            tag = "equivalent" if m.equivalent else "SURVIVED"
            print(f"{tag:<8} [{m.ident}] {m.path}: {m.breaks} ({secs:.0f} s)", flush=True)
        print(f"         {i}/{len(runnable)} done, {time.monotonic() - t0:.0f} s", flush=True)

    # Leave the scratch build matching the sources, so the next run starts incremental.
    total = len(killed) + len(survived)
    unexplained = [m for m in survived if not m.equivalent]
    print()
    print(f"mutants: {len(mutants)}, killed {len(killed)}, survived {len(survived)} "
          f"({len(survived) - len(unexplained)} known equivalent), errors {len(errors)}")
    if total:
        print(f"score: {len(killed)}/{total} killed = {100.0 * len(killed) / total:.1f}%; "
              f"excluding known-equivalent survivors: {len(killed)}/{total - len(survived) + len(unexplained)}")
    for m in survived:
        print(f"  survivor [{m.ident}] {m.path}: {m.breaks}"
              + (f" -- equivalent: {m.equivalent}" if m.equivalent else ""))
    for m, why in errors:
        print(f"  ERROR [{m.ident}] {why}")
    print(f"time: {time.monotonic() - t0:.0f} s; logs in {logs}")
    if errors:
        return 2
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
