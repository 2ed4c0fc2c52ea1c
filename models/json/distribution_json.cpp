#include "models/json/distribution_json.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/time.hpp"

namespace waitroom::models {

namespace {
constexpr double max_seconds = sim::max_input_seconds;

std::vector<std::string> kind_names() {
  std::vector<std::string> out;
  for (const auto& [kind, name] : sim::dist_kind_names) out.emplace_back(name);
  return out;
}
}  // namespace

sim::distribution read_distribution(const object_reader& parent, const std::string& key) {
  const object_reader r = *parent.object(
      key, {"dist", "value", "mean", "min", "max", "stddev", "shape", "scale", "k", "samples"},
      true);
  std::string kind = r.choice("dist", std::nullopt, kind_names());
  // Each kind takes exactly its own parameters; a stray one is a mistake worth reporting.
  std::vector<std::string> params;
  if (kind == "deterministic") params = {"value"};
  if (kind == "exponential") params = {"mean"};
  if (kind == "uniform") params = {"min", "max"};
  if (kind == "normal" || kind == "lognormal") params = {"mean", "stddev"};
  if (kind == "gamma" || kind == "weibull") params = {"shape", "scale"};
  if (kind == "erlang") params = {"k", "mean"};
  if (kind == "empirical") params = {"samples"};
  for (const auto& [k, v] : parent.raw(key).items()) {
    if (k != "dist" && std::find(params.begin(), params.end(), k) == params.end()) {
      std::string all;
      for (const auto& p : params) all += (all.empty() ? "" : ", ") + p;
      r.fail(k, "a parameter of the " + kind + " distribution (" + all + ")", "'" + k + "'");
    }
  }
  const number_range non_negative{0.0};
  const number_range positive{0.0, std::numeric_limits<double>::infinity(), true};
  const number_range positive_time{0.0, max_seconds, true};
  if (kind == "deterministic")
    return sim::distribution::constant(r.number("value", std::nullopt, {0.0, max_seconds}));
  if (kind == "exponential")
    return sim::distribution::exponential(r.number("mean", std::nullopt, positive_time));
  if (kind == "uniform") {
    double lo = r.number("min", std::nullopt, {0.0, max_seconds});
    double hi = r.number("max", std::nullopt, {lo, max_seconds, true});
    return sim::distribution::uniform(lo, hi);
  }
  if (kind == "normal")
    return sim::distribution::normal(r.number("mean", std::nullopt, {0.0, max_seconds}),
                                     r.number("stddev", std::nullopt, non_negative));
  if (kind == "lognormal") {
    // Given by the mean and standard deviation of the duration itself.
    double m = r.number("mean", std::nullopt, positive_time);
    double sd = r.number("stddev", std::nullopt, non_negative);
    double s2 = std::log1p((sd * sd) / (m * m));
    return sim::distribution::lognormal(std::log(m) - 0.5 * s2, std::sqrt(s2));
  }
  if (kind == "gamma")
    return sim::distribution::gamma(r.number("shape", std::nullopt, positive),
                                    r.number("scale", std::nullopt, positive_time));
  if (kind == "weibull")  // S(t) = exp(-(t / scale)^shape), as the fit writes patience
    return sim::distribution::weibull(r.number("shape", std::nullopt, positive),
                                      r.number("scale", std::nullopt, positive_time));
  if (kind == "erlang")
    return sim::distribution::erlang(static_cast<int>(r.integer("k", std::nullopt, 1, 1000)),
                                     r.number("mean", std::nullopt, positive_time));
  const json& arr = r.array("samples", 1);
  std::vector<double> xs;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const json& v = arr[i];
    if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > max_seconds)
      r.fail_item("samples", i, "a number >= 0", describe(v));
    xs.push_back(v.get<double>());
  }
  return sim::distribution::empirical(std::move(xs));
}

json write_distribution(const sim::distribution& d) {
  json j{{"dist", sim::to_string(d.kind)}};
  switch (d.kind) {
    case sim::dist_kind::deterministic:
      j["value"] = d.a;
      break;
    case sim::dist_kind::exponential:
      j["mean"] = d.a;
      break;
    case sim::dist_kind::uniform:
      j["min"] = d.a;
      j["max"] = d.b;
      break;
    case sim::dist_kind::normal:
      j["mean"] = d.a;
      j["stddev"] = d.b;
      break;
    case sim::dist_kind::lognormal: {
      double m = d.mean();
      j["mean"] = m;
      j["stddev"] = m * std::sqrt(std::expm1(d.b * d.b));
      break;
    }
    case sim::dist_kind::gamma:
    case sim::dist_kind::weibull:
      j["shape"] = d.a;
      j["scale"] = d.b;
      break;
    case sim::dist_kind::erlang:
      j["k"] = static_cast<int>(d.a);
      j["mean"] = d.b;
      break;
    case sim::dist_kind::empirical:
      j["samples"] = d.samples;
      break;
  }
  return j;
}

}  // namespace waitroom::models
