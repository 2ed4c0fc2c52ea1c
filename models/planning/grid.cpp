#include "models/planning/grid.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/input_error.hpp"

namespace waitroom::models::planning {

double parse_number(const std::string& text, const std::string& where) {
  try {
    std::size_t used = 0;
    double v = std::stod(text, &used);
    if (used != text.size() || !std::isfinite(v)) throw std::invalid_argument(text);
    return v;
  } catch (const std::exception&) {
    throw sim::input_error(where, "a number", "'" + text + "'");
  }
}

std::vector<double> parse_range(const std::string& text, const std::string& where, bool integer) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    std::size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon == std::string::npos ? colon : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() < 2 || parts.size() > 3)
    throw sim::input_error(where, "START:STOP[:STEP]", "'" + text + "'");
  double lo = parse_number(parts[0], where), hi = parse_number(parts[1], where);
  double step = parts.size() == 3 ? parse_number(parts[2], where)
                : integer         ? std::max(1.0, std::round((hi - lo) / 20.0))
                                  : (hi - lo) / 20.0;
  // The values START + k STEP up to STOP (and a rounding's worth beyond), counted before any
  // is made so that a huge range is refused at once.
  const double count = std::floor((hi - lo) / step + 1e-9) + 1;
  if (hi < lo || step <= 0 || !(count <= static_cast<double>(max_axis_values)))
    throw sim::input_error(
        where,
        fmt::format("START <= STOP and a STEP > 0 giving at most {} values", max_axis_values),
        hi < lo || step <= 0 ? "'" + text + "'" : fmt::format("'{}' ({:.0f} values)", text, count));
  std::vector<double> out;
  for (std::size_t i = 0;; ++i) {
    double v = lo + static_cast<double>(i) * step;
    if (v > hi + 1e-9 * std::max(1.0, std::abs(hi))) break;
    out.push_back(std::round(v * 1e9) / 1e9);  // 0.1 * 3 reads 0.3
  }
  return out;
}

std::string json_number(double v) {
  if (v == std::floor(v) && std::abs(v) < 9e15) return std::to_string(static_cast<std::int64_t>(v));
  return nlohmann::json(v).dump();
}

std::function<double(double)> parse_tie(const std::string& expr, const std::string& where) {
  auto x = expr.find('x');
  if (x == std::string::npos || expr.find('x', x + 1) != std::string::npos)
    throw sim::input_error(where, "an expression in x such as 30-x, x+5 or 2*x", "'" + expr + "'");
  std::string left = expr.substr(0, x), right = expr.substr(x + 1);
  if (left.empty() && right.empty()) return [](double v) { return v; };
  if (right.empty() && !left.empty()) {
    char op = left.back();
    double c = parse_number(left.substr(0, left.size() - 1), where);
    if (op == '-') return [c](double v) { return c - v; };
    if (op == '+') return [c](double v) { return c + v; };
    if (op == '*') return [c](double v) { return c * v; };
  }
  if (left.empty() && right.size() > 1) {
    char op = right.front();
    double c = parse_number(right.substr(1), where);
    if (op == '-') return [c](double v) { return v - c; };
    if (op == '+') return [c](double v) { return v + c; };
    if (op == '*') return [c](double v) { return v * c; };
  }
  throw sim::input_error(where, "an expression in x such as 30-x, x+5 or 2*x", "'" + expr + "'");
}

std::size_t grid_size(const std::vector<axis>& axes) {
  std::size_t total = 1;
  for (const auto& ax : axes) total *= ax.values.size();
  return total;
}

std::vector<double> grid_values(const std::vector<axis>& axes, std::size_t i) {
  std::vector<std::size_t> idx(axes.size());
  for (std::size_t k = axes.size(); k-- > 0;) {
    idx[k] = i % axes[k].values.size();
    i /= axes[k].values.size();
  }
  std::vector<double> values;
  for (std::size_t k = 0; k < axes.size(); ++k) values.push_back(axes[k].values[idx[k]]);
  return values;
}

bool point_holds(const grid_point& p) {
  bool pass = true;
  for (const auto& o : evaluate(*p.scenario.sla, p.tables)) pass = pass && o.pass;
  return pass;
}

}  // namespace waitroom::models::planning
