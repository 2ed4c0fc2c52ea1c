#include "report.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace waitroom::bench {

std::optional<double> median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

std::optional<double> median_ratio(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> q;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (a[i] > 0 && b[i] > 0) q.push_back(a[i] / b[i]);
  return median(std::move(q));
}

std::optional<double> parallel_ideal_seconds(std::vector<double> seconds_per_cpu, unsigned threads,
                                             double jobs) {
  std::erase_if(seconds_per_cpu, [](double t) { return !(t > 0); });
  if (threads == 0 || seconds_per_cpu.size() < threads) return std::nullopt;
  std::sort(seconds_per_cpu.begin(), seconds_per_cpu.end());
  double rate = 0;
  for (unsigned k = 0; k < threads; ++k) rate += 1.0 / seconds_per_cpu[k];
  return jobs / rate;
}

std::vector<int> spread_cpus(const std::vector<int>& cpus, std::size_t most) {
  if (cpus.size() <= most) return cpus;
  if (most == 0) return {};
  if (most == 1) return {cpus.front()};
  std::vector<int> out;
  for (std::size_t k = 0; k < most; ++k) out.push_back(cpus[k * (cpus.size() - 1) / (most - 1)]);
  return out;
}

std::optional<double> per_user(double bytes, std::uint64_t users) {
  if (users == 0 || !(bytes > 0)) return std::nullopt;
  return bytes / static_cast<double>(users);
}

std::string target_line(const std::string& what, std::optional<double> value, double target,
                        bool at_least, const std::string& why) {
  const char* sense = at_least ? ">=" : "<=";
  if (!value)
    return fmt::format("  {:<58} {:>8}  target {} {:<6} NOT MEASURED ({})\n", what, "-", sense,
                       target, why);
  const bool met = at_least ? *value >= target : *value <= target;
  return fmt::format("  {:<58} {:>8.2f}  target {} {:<6} {}\n", what, *value, sense, target,
                     met ? "met" : "NOT MET");
}

std::string ratio_text(std::optional<double> r) {
  return r ? fmt::format("{:.2f}", *r) : "-";
}

}  // namespace waitroom::bench
