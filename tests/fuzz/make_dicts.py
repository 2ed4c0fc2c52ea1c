#!/usr/bin/env python3
"""Writes the libFuzzer dictionaries tests/fuzz/{scenario,shard,trace}.dict: the scenario
schema's property names and enum values, every key of the shipped scenarios and of the
committed shard corpus, as JSON strings ("\"key\"" entries), so mutations can splice whole
keys instead of finding them a byte at a time. Run from the repository after the schema or the
shard format changes: python3 tests/fuzz/make_dicts.py"""
import glob
import json
import os

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def walk(x, keys, strings):
    if isinstance(x, dict):
        for k, v in x.items():
            keys.add(k)
            walk(v, keys, strings)
    elif isinstance(x, list):
        for v in x:
            walk(v, keys, strings)
    elif isinstance(x, str) and len(x) <= 24 and not x.startswith(("/", ".")):
        strings.add(x)


def schema_words():
    schema = json.load(open(os.path.join(root, "scenarios/scenario.schema.json")))
    words = set()

    def go(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k == "properties" and isinstance(v, dict):
                    words.update(v.keys())
                if k == "enum" and isinstance(v, list):
                    words.update(e for e in v if isinstance(e, str))
                if k == "const" and isinstance(v, str):
                    words.add(v)
                go(v)
        elif isinstance(x, list):
            for v in x:
                go(v)

    go(schema)
    return words


def entry(word):
    quoted = json.dumps(word)  # a JSON string, as it appears in the input
    return '"' + quoted.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write(name, words, extra=()):
    lines = [f"# libFuzzer dictionary for fuzz_{name}: written by tests/fuzz/make_dicts.py"]
    lines += [entry(w) for w in sorted(words) if w and all(32 <= ord(c) < 127 for c in w)]
    lines += list(extra)
    with open(os.path.join(root, "tests/fuzz", name + ".dict"), "w") as f:
        f.write("\n".join(lines) + "\n")


scenario_keys, scenario_strings = set(), set()
for path in glob.glob(os.path.join(root, "scenarios/*.json")):
    if not path.endswith("schema.json"):
        walk(json.load(open(path)), scenario_keys, scenario_strings)
scenario = schema_words() | scenario_keys | scenario_strings
# --set overrides after the NUL: pointers into the main blocks.
pointers = ['"/' + k + '"' for k in ("arrivals", "classes", "queue", "release", "run", "sla",
                                        "backend", "polling", "seed", "name")]
write("scenario", scenario, pointers + ['"\\x00/"', '"=null"', '"/0/"', '"/-"'])

shard_keys, shard_strings = set(), set()
for path in glob.glob(os.path.join(root, "tests/fuzz/corpus/shard/*")):
    walk(json.load(open(path)), shard_keys, shard_strings)
write("shard", shard_keys | scenario_keys | {"run", "check", "sweep", "plan"})

with open(os.path.join(root, "tests/fuzz/trace.dict"), "w") as f:
    f.write("# libFuzzer dictionary for fuzz_trace: written by tests/fuzz/make_dicts.py\n")
    for w in ("timestamp_s", "class", "user_id", "vip", "normal", ",", "\\x0d\\x0a", "#",
              "1e308", "nan", "inf", "18446744073709551615", "3153600000"):
        f.write('"' + w + '"\n')
