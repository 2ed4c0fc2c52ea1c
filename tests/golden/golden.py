#!/usr/bin/env python3
"""Golden results: runs every case of cases.json and compares its outputs with expected.json.

Each case's JSON result (and trace, when it writes one) must hash to the committed SHA-256.
On a mismatch it names the top-level sections of the result that changed, so a refactoring
that was meant to change nothing shows where it did. --update rewrites expected.json.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sections(raw: bytes) -> dict:
    """A short hash of each top-level member, to say where two results differ."""
    doc = json.loads(raw)
    return {k: sha256(json.dumps(v, sort_keys=True).encode())[:16] for k, v in doc.items()}


def run_case(binary: str, case: dict, workdir: str, timeout: int) -> dict:
    out = os.path.join(workdir, case["name"] + ".json")
    trace = os.path.join(workdir, case["name"] + ".trace.jsonl")
    args = [a.replace("{trace}", trace) for a in case["args"]]
    cmd = [binary, "run", *args, "--format", "json", "--out", out]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{case['name']}: exit {proc.returncode}: {proc.stderr.decode()[-2000:]}")
    with open(out, "rb") as f:
        raw = f.read()
    got = {"sha256": sha256(raw), "sections": sections(raw)}
    if "{trace}" in case["args"]:
        with open(trace, "rb") as f:
            got["trace_sha256"] = sha256(f.read())
    return got


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--binary", required=True, help="the waitroom program")
    ap.add_argument("--update", action="store_true", help="rewrite expected.json")
    ap.add_argument("--only", help="run only the case of this name")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=int, default=100, help="seconds per case")
    opts = ap.parse_args()

    with open(os.path.join(HERE, "cases.json")) as f:
        cases = json.load(f)["cases"]
    if opts.only:
        cases = [c for c in cases if c["name"] == opts.only]
        if not cases:
            print(f"golden: no case named {opts.only!r}", file=sys.stderr)
            return 2
    expected_path = os.path.join(HERE, "expected.json")
    expected = {}
    if os.path.exists(expected_path):
        with open(expected_path) as f:
            expected = json.load(f)

    with tempfile.TemporaryDirectory(prefix="waitroom-golden-") as workdir:
        with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
            futures = {c["name"]: pool.submit(run_case, opts.binary, c, workdir, opts.timeout)
                       for c in cases}
            results = {name: fut.result() for name, fut in futures.items()}

    if opts.update:
        merged = dict(expected)
        merged.update(results)
        with open(expected_path, "w") as f:
            json.dump(dict(sorted(merged.items())), f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"golden: wrote {len(results)} cases to {os.path.relpath(expected_path, ROOT)}")
        return 0

    failed = 0
    for name, got in results.items():
        want = expected.get(name)
        if want is None:
            print(f"FAIL {name}: no expected result (run scripts/golden --update)")
            failed += 1
            continue
        problems = []
        if got["sha256"] != want["sha256"]:
            changed = sorted(k for k in set(got["sections"]) | set(want["sections"])
                             if got["sections"].get(k) != want["sections"].get(k))
            problems.append("result differs in " + (", ".join(changed) or "formatting only"))
        if got.get("trace_sha256") != want.get("trace_sha256"):
            problems.append("trace differs")
        if problems:
            print(f"FAIL {name}: {'; '.join(problems)}")
            failed += 1
        else:
            print(f"ok   {name}")
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
