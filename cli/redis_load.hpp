#pragma once
// `waitroom load`'s arguments, shared by the load itself and its speed search.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/scenario/scenario.hpp"
#include "redis/load.hpp"
#include "redis/url.hpp"
#include "reports/output_format.hpp"

namespace waitroom::cli {

struct load_args {
  std::optional<std::string> scenario;
  std::optional<std::string> url;
  redis::load_options opt;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> out;
  std::optional<reports::output_format> format;
  bool keep = false;
  bool search = false;  // --speed max: find the fastest speed Redis keeps up with
  std::optional<double> probe_s, p99_limit_ms;
  std::optional<double> retry_s;  // --redis-retry: the reconnect budget, 0: none
};

// Nanoseconds as milliseconds, as the load's reports give latencies.
inline double ms(double ns) {
  return ns * 1e-6;
}

// `--speed max`: probes of increasing speed until Redis falls behind, every probe on its own
// keys, deleted after it (also when it throws); the result to --out or stdout. Exit 1 when no
// speed kept up.
int speed_search(const models::scenario& sc, const redis::redis_url& url, load_args& a);

}  // namespace waitroom::cli
