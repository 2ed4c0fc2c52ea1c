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
