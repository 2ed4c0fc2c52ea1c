# Shared by the scripts: install missing Debian packages, configure and build.
# shellcheck shell=bash
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The preset's folder (CMakePresets.json): build/, or build-PRESET/ for the others.
preset_dir() { if [ "$1" = release ]; then echo "$repo_root/build"; else echo "$repo_root/build-$1"; fi; }
build_dir="${WAITROOM_BUILD_DIR:-$(preset_dir "${WAITROOM_PRESET:-release}")}"

build_packages=(cmake g++ make pkg-config libboost-program-options-dev libfmt-dev
                nlohmann-json3-dev libeigen3-dev libnlopt-cxx-dev libhiredis-dev libssl-dev)
# redis-server for the tests labelled `redis` (each starts its own on a temp socket);
# redis-tools for redis-cli and redis-benchmark.
test_packages=(libgtest-dev libgmock-dev python3 python3-jsonschema chromium
               poppler-utils valgrind redis-server redis-tools time)

# The Python module (python/) and its tests: Debian's interpreter, pybind11, pandas, pytest,
# matplotlib (docs/python.md's example plots).
python_packages=(python3-dev pybind11-dev python3-pandas python3-pytest python3-matplotlib)

# clang and its compiler-rt (libFuzzer, sanitizers) for scripts/fuzz.
fuzz_packages=(clang libclang-rt-14-dev)

# Installs whichever of the named packages are missing, saying which.
ensure_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "waitroom: installing Debian packages: ${missing[*]}" >&2
  local sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# Configures once with a preset of CMakePresets.json (WAITROOM_PRESET: release unless told;
# debug, asan, tsan, fuzz) in its folder, or in WAITROOM_BUILD_DIR when set, and builds what is
# stale: every target, or those named in WAITROOM_TARGETS. Extra arguments go to the configure
# step (-DNAME=VALUE).
preset="${WAITROOM_PRESET:-release}"
build() {
  local extra=("$@")
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    (cd "$repo_root" && cmake --preset "$preset" -B "$build_dir" "${extra[@]}") >&2
  fi
  local targets=()
  for t in ${WAITROOM_TARGETS:-}; do targets+=(--target "$t"); done
  cmake --build "$build_dir" -j"$(nproc)" "${targets[@]}" >&2
}

# The Redis client benchmarks' server (scripts/redis-bench, -ab, -ir): a redis-server of their
# own on a temp unix socket ($dir/r.sock), no persistence, stopped by its pid at exit; sets
# dir, pid and sha (the release script, loaded).
start_bench_redis() {
  dir=$(mktemp -d "/tmp/waitroom-$1-XXXXXX")
  redis-server --port 0 --unixsocket "$dir/r.sock" --dir "$dir" --save '' --appendonly no \
    --daemonize no --logfile "$dir/log" &
  pid=$!
  trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
  for _ in $(seq 100); do redis-cli -s "$dir/r.sock" ping >/dev/null 2>&1 && break; sleep 0.05; done
  sha=$(redis-cli -s "$dir/r.sock" script load "$(cat "$repo_root/redis/lua/release.lua")")
}

# redis-benchmark's arguments for the command waitroom_redis_bench calls $1 (zadd, zrank,
# evalsha), in the array rb.
bench_command_args() {
  case $1 in
    zadd) rb=(ZADD bench:z __rand_int__ m:__rand_int__) ;;
    zrank) rb=(ZRANK bench:z m:__rand_int__) ;;
    evalsha) rb=(EVALSHA "$sha" 4 bench:empty bench:rel bench:stats bench:log 1 released:0 "" "") ;;
  esac
}
