#include "scenario_loading.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "default_scenario.hpp"
#include "memory_check.hpp"
#include "output_file.hpp"
#include "sim/input_error.hpp"

namespace waitroom::cli {

const scenario_source& source_of(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, scenario_source> cache;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(path); it != cache.end()) return it->second;
  scenario_source src{models::read_json_file(path), {}};
  std::error_code ec;
  auto dir = std::filesystem::absolute(std::filesystem::path(path), ec).parent_path();
  src.dir = ec ? std::filesystem::path(path).parent_path().string() : dir.string();
  if (src.dir.empty()) src.dir.push_back('.');  // (not = ".": a GCC 12 -Wrestrict false alarm)
  return cache.emplace(path, std::move(src)).first->second;
}

namespace {
// Each warning once per process: a plan or sweep loads the scenario once per grid point.
void say_warnings(const models::scenario& s) {
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard lock(mutex);
  for (const auto& w : s.warnings)
    if (said.insert(w).second) fmt::print(stderr, "waitroom: warning: {}\n", w);
}
// --scale-arrivals F: every rate times F; CLASS=F: that class's arrivals times F, so the total
// rate is times sum(share x F) and each share becomes share x F over that sum.
void scale_arrivals(models::scenario& s, const std::string& value, const std::string& name) {
  const std::string flag = "--scale-arrivals " + value;
  const auto eq = value.find('=');
  const std::string cls = eq == std::string::npos ? "" : value.substr(0, eq);
  const std::string text = eq == std::string::npos ? value : value.substr(eq + 1);
  double f = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), f);
  if (ec != std::errc() || end != text.data() + text.size() || !(f > 0) || !std::isfinite(f))
    throw sim::input_error(flag, "a factor above 0 (2, 0.5) or CLASS=FACTOR", "'" + text + "'");
  if (!s.arrivals.classes_by_share() && !cls.empty())
    throw sim::input_error(flag, "arrivals whose classes come by share", "a trace");
  double total = f;
  if (!cls.empty()) {
    auto it = std::find_if(s.classes.begin(), s.classes.end(),
                           [&](const auto& c) { return c.name == cls; });
    if (it == s.classes.end()) throw sim::input_error(flag, "a class of " + name, "'" + cls + "'");
    total = 1 + it->share * (f - 1);
    it->share *= f;
    for (auto& c : s.classes) c.share /= total;
  }
  if (!s.arrivals.scale(total))
    throw sim::input_error(flag, "arrivals with a rate to scale", "a trace (recorded times)");
}

}  // namespace

models::scenario load(const common_args& a, std::optional<std::string> path) {
  nlohmann::json j;
  std::string name, base_dir = ".";
  if (path) {
    name = *path;
    const auto it = a.embedded.find(name);
    const scenario_source& src = it != a.embedded.end() ? it->second : source_of(name);
    j = src.json;
    base_dir = src.dir;
  } else {
    name = std::string(default_scenario_name);
    j = models::parse_json_text(std::string(default_scenario_text), name);
  }
  std::vector<std::string> scales;  // applied to the scenario read, after every --set
  for (const auto& s : a.sets) {
    if (s.starts_with(scale_prefix))
      scales.push_back(s.substr(scale_prefix.size()));
    else if (s.starts_with(unset_prefix))
      models::apply_unset(j, s.substr(unset_prefix.size()));
    else
      models::apply_override(j, s);
  }
  models::scenario s = models::parse_scenario(j, name, base_dir);
  for (const auto& f : scales) scale_arrivals(s, f, name);
  if (s.arrivals.kind == models::arrival_kind::trace) {
    std::filesystem::path trace(s.arrivals.trace_file);
    if (trace.is_relative()) trace = std::filesystem::path(base_dir) / trace;
    refuse_same_file(outputs_of(a), {{name + ": the arrivals' trace_file", trace.string()}});
  }
  check_run_memory(s, name);  // an unstable queue: refused with the estimate, not bad_alloc
  check_run_work(s, name, a.max_events);  // hours of ticks: refused before they start
  say_warnings(s);
  return s;
}

}  // namespace waitroom::cli
