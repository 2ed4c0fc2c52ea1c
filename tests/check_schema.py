#!/usr/bin/env python3
"""Validates every shipped scenario against scenarios/scenario.schema.json.

Exits 77 (skipped) when the jsonschema module is not installed."""
import json
import pathlib
import sys

try:
    import jsonschema
except ImportError:
    print("jsonschema is not installed: skipped")
    sys.exit(77)

root = pathlib.Path(sys.argv[1])
schema = json.loads((root / "scenarios" / "scenario.schema.json").read_text())
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
failed = 0
count = 0
for path in sorted((root / "scenarios").glob("*.json")):
    if path.name == "scenario.schema.json":
        continue
    count += 1
    errors = list(validator.iter_errors(json.loads(path.read_text())))
    for e in errors:
        print(f"{path.name}: /{'/'.join(map(str, e.path))}: {e.message}")
    failed += bool(errors)
# The schema must also reject what the loader rejects: an unknown key.
bad = json.loads((root / "scenarios" / "clinic.json").read_text())
bad["relase"] = {}
if validator.is_valid(bad):
    print("schema accepted an unknown top-level key")
    failed += 1
print(f"schema: {count} scenarios checked, {failed} problems")
sys.exit(1 if failed else 0)
