#!/usr/bin/env bash
# Installs the build into a temporary prefix, builds tests/install/consumer against it with
# find_package(waitroom), and checks that its run of an installed scenario agrees with the
# installed program's (same users released, same mean wait to 9 digits).
set -euo pipefail
build_dir=$1 source_dir=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/waitroom-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build_dir" --prefix "$tmp/prefix" >/dev/null
cmake -S "$source_dir/tests/install/consumer" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/build" -j2 >/dev/null
scenario="$tmp/prefix/share/waitroom/scenarios/clinic.json"
got=$("$tmp/build/consumer" "$scenario")
"$tmp/prefix/bin/waitroom" run "$scenario" --format json --out "$tmp/result.json"
want=$(python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))["overall"]
print("released %d mean %.9f" % (o["released"], o["wait_s"]["mean"]))' "$tmp/result.json")
echo "consumer: $got"
echo "program:  $want"
[ "$got" = "$want" ]

# The Python package, when the build has it: installed under the prefix, imported from there
# (and not from the build tree), and running the installed scenario as the program does.
if [ -d "$build_dir/python/waitroom" ]; then
  site=$(grep '^WAITROOM_PYTHON_INSTALL_DIR:' "$build_dir/CMakeCache.txt" | cut -d= -f2)
  PYTHONPATH="$tmp/prefix/$site" /usr/bin/python3 -c '
import json, sys, waitroom
assert waitroom.__file__.startswith(sys.argv[1]), waitroom.__file__
o = json.loads(waitroom.run(sys.argv[2]).json)["overall"]
print("python:   released %d mean %.9f" % (o["released"], o["wait_s"]["mean"]))
assert "released %d mean %.9f" % (o["released"], o["wait_s"]["mean"]) == sys.argv[3]
' "$tmp/prefix/$site" "$scenario" "$want"
fi
