// The --redis flags and load's usage, the same whether or not the build has the Redis backend
// (a build without it refuses the flags in require_redis_backend).
#include <algorithm>

#include "redis_commands.hpp"
#include "sim/input_error.hpp"

namespace waitroom::cli {

bool wants_redis(const std::vector<std::string>& args) {
  return std::find(args.begin(), args.end(), "--redis") != args.end();
}

redis_request take_redis_flags(std::vector<std::string>& args) {
  redis_request r;
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--redis") {
      if (i + 1 >= args.size())
        throw sim::input_error("--redis", "a URL (redis://host:port or unix:///path)", "nothing");
      r.url = args[++i];
    } else if (args[i] == "--redis-keep") {
      r.keep = true;
    } else {
      rest.push_back(args[i]);
    }
  }
  if (r.keep && !r.url) throw sim::input_error("--redis-keep", "--redis URL with it", "no --redis");
  if (r.url) require_redis_backend();
  args = std::move(rest);
  return r;
}

std::string load_usage() {
  return R"(  waitroom load SCENARIO --redis URL [--speed X|asap] [--clients K] [--duration S]
               [--threads T] [--pipeline N] [--no-status-cache] [--redis-keep] [--redis-retry S]
               [--set P=V] [--unset P] [--seed N] [--format table|json] [--out FILE]
  waitroom load SCENARIO --redis URL --speed max [--probe S] [--p99-limit MS] [...]
               the fastest speed Redis keeps up with (exit 1 when none down to 1/64x)
)";
}

}  // namespace waitroom::cli
