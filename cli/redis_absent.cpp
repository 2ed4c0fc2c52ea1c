// The Redis commands of a build without the Redis backend (-DWAITROOM_WITH_REDIS=OFF): each
// says so as bad input (exit 2) before any work.
#include <algorithm>

#include <fmt/format.h>

#include "commands.hpp"
#include "redis_commands.hpp"
#include "sim/input_error.hpp"

namespace waitroom::cli {

void require_redis_backend() {
  throw sim::input_error("--redis",
                         "a build with the live Redis backend (cmake -DWAITROOM_WITH_REDIS=ON)",
                         "a build without it");
}

int redis_run_command(const std::vector<std::string>&) {
  require_redis_backend();
  return exit_bad_input;
}

void refuse_unmirrorable(const models::scenario&, const std::string&) {
  require_redis_backend();
}

int mirror_first_replications(const redis_request&, const std::vector<const models::scenario*>&,
                              const std::vector<std::string>&, const std::string&,
                              mirrored_blocks&) {
  require_redis_backend();
  return exit_bad_input;
}

int load_command(const std::vector<std::string>& args) {
  if (std::find(args.begin(), args.end(), "--help") != args.end() ||
      std::find(args.begin(), args.end(), "-h") != args.end()) {
    fmt::print("usage:\n{}\nThis build has no Redis backend (cmake -DWAITROOM_WITH_REDIS=ON).\n",
               load_usage());
    return exit_ok;
  }
  throw sim::input_error("waitroom load",
                         "a build with the live Redis backend (cmake -DWAITROOM_WITH_REDIS=ON)",
                         "a build without it");
}

}  // namespace waitroom::cli
