// Every arrival kind's answers, one switch per question, none with `default:` (a new kind
// that misses one does not compile): nothing outside this file switches on the kind but the
// scenario reader, which reads each kind's keys (models/scenario/read_arrivals.cpp).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include <nlohmann/json.hpp>

#include "models/json/distribution_json.hpp"
#include "models/spec/scenario.hpp"

namespace waitroom::models {

bool arrival_spec::open_ended() const {
  switch (kind) {
    case arrival_kind::poisson:
    case arrival_kind::renewal:
      return true;
    case arrival_kind::piecewise:
      return !segments.empty() && std::isinf(segments.back().duration_s);
    case arrival_kind::trace:
      return false;
    case arrival_kind::surge:  // without a base rate the surge ends even without a duration
      return surge.base_rate_per_s > 0 && std::isinf(surge.duration_s);
  }
  return true;
}

double arrival_spec::final_rate_per_s() const {
  switch (kind) {
    case arrival_kind::poisson:
      return rate_per_s;
    case arrival_kind::renewal:
      return 1.0 / interarrival_s.mean();
    case arrival_kind::piecewise:
      return segments.empty() ? 0.0 : segments.back().rate_per_s;
    case arrival_kind::trace:
      return 0.0;
    case arrival_kind::surge:
      return open_ended() ? surge.base_rate_per_s : 0.0;
  }
  return 0.0;
}

double arrival_spec::max_rate_per_s() const {
  switch (kind) {
    case arrival_kind::poisson:
      return rate_per_s;
    case arrival_kind::renewal: {
      const double m = interarrival_s.mean();
      return m > 0 ? 1.0 / m : std::numeric_limits<double>::infinity();
    }
    case arrival_kind::piecewise: {
      double r = 0;
      for (const auto& seg : segments) r = std::max(r, seg.rate_per_s);
      return r;
    }
    case arrival_kind::trace: {
      double r = 0;
      std::size_t first = 0;  // the trace is in time order
      for (std::size_t i = 0; i < trace.size(); ++i) {
        while (first < i && trace[i].time.seconds() - trace[first].time.seconds() >= 1.0) ++first;
        r = std::max(r, static_cast<double>(i - first + 1));
      }
      return r;
    }
    case arrival_kind::surge:  // the rate never rises
      return surge.peak_rate_per_s;
  }
  return std::numeric_limits<double>::infinity();
}

bool arrival_spec::poisson() const {
  switch (kind) {
    case arrival_kind::poisson:
    case arrival_kind::piecewise:
    case arrival_kind::surge:
      return true;
    case arrival_kind::renewal:
    case arrival_kind::trace:
      return false;
  }
  return false;
}

bool arrival_spec::none() const {
  switch (kind) {
    case arrival_kind::poisson:
      return rate_per_s == 0;
    case arrival_kind::piecewise:
      return std::all_of(segments.begin(), segments.end(),
                         [](const sim::rate_segment& s) { return s.rate_per_s == 0; });
    case arrival_kind::trace:
      return trace.empty();
    case arrival_kind::renewal:
      return false;
    case arrival_kind::surge:  // the peak is the highest rate
      return surge.peak_rate_per_s == 0;
  }
  return false;
}

bool arrival_spec::classes_by_share() const {
  switch (kind) {
    case arrival_kind::poisson:
    case arrival_kind::piecewise:
    case arrival_kind::renewal:
    case arrival_kind::surge:
      return true;
    case arrival_kind::trace:
      return false;
  }
  return true;
}

bool arrival_spec::scale(double factor) {
  switch (kind) {
    case arrival_kind::poisson:
      rate_per_s *= factor;
      break;
    case arrival_kind::piecewise:
      for (auto& seg : segments) seg.rate_per_s *= factor;
      break;
    case arrival_kind::renewal:  // F x the rate: interarrival times 1/F as long
      interarrival_s = interarrival_s.scaled(1 / factor);
      break;
    case arrival_kind::surge:
      surge.base_rate_per_s *= factor;
      surge.peak_rate_per_s *= factor;
      break;
    case arrival_kind::trace:
      return false;
  }
  backlog_users =
      static_cast<std::uint64_t>(std::llround(static_cast<double>(backlog_users) * factor));
  return true;
}

std::optional<double> arrival_spec::steady_poisson_rate_per_s() const {
  switch (kind) {
    case arrival_kind::poisson:
      return rate_per_s;
    case arrival_kind::piecewise:  // even one endless segment: the closed forms take poisson's
    case arrival_kind::surge:      // Poisson, but its rate changes: no steady state to solve
    case arrival_kind::renewal:
    case arrival_kind::trace:
      return std::nullopt;
  }
  return std::nullopt;
}

const sim::distribution* arrival_spec::renewal_interarrival_s() const {
  switch (kind) {
    case arrival_kind::renewal:
      return &interarrival_s;
    case arrival_kind::poisson:  // a renewal process too, but M/... has the closed forms
    case arrival_kind::piecewise:
    case arrival_kind::trace:
    case arrival_kind::surge:
      return nullptr;
  }
  return nullptr;
}

void arrival_spec::peak_candidates(double horizon_s, double release_per_s,
                                   const std::function<void(double, double)>& at) const {
  // At a piecewise constant rate the queue is piecewise linear and peaks where a rate changes
  // (a trace: at an arrival), whatever the release rate.
  switch (kind) {
    case arrival_kind::poisson:
    case arrival_kind::renewal:
      if (std::isfinite(horizon_s)) at(horizon_s, final_rate_per_s() * horizon_s);
      return;
    case arrival_kind::piecewise: {
      double t = 0, arrived = 0;
      for (const auto& seg : segments) {
        const double d = std::min(seg.duration_s, horizon_s - t);
        if (!(d > 0) || !std::isfinite(d)) break;
        t += d;
        arrived += d * seg.rate_per_s;
        at(t, arrived);
      }
      return;
    }
    case arrival_kind::trace: {
      double arrived = 0;
      for (const auto& r : trace) {
        const double t = r.time.seconds();
        if (t > horizon_s) break;
        at(t, ++arrived);
      }
      return;
    }
    case arrival_kind::surge: {
      const auto& g = surge;
      double end = std::min(g.duration_s, horizon_s);
      if (std::isinf(end) && g.base_rate_per_s == 0)  // where fewer than one more is expected
        end = std::min(horizon_s, g.half_life_s * std::log2(std::max(1.0, g.decay_total())));
      // The rate never rises, so the queue is concave: it peaks where the rate falls to the
      // release rate.
      if (g.base_rate_per_s < release_per_s && release_per_s < g.peak_rate_per_s) {
        const double t = g.half_life_s * std::log2((g.peak_rate_per_s - g.base_rate_per_s) /
                                                   (release_per_s - g.base_rate_per_s));
        if (t < end) at(t, g.expected_by(t));
      }
      if (std::isfinite(end)) at(end, g.expected_by(end));
      return;
    }
  }
}

namespace {
const char* name_of_kind(arrival_kind k) {
  for (const auto& [kind, name] : arrival_kind_names)
    if (kind == k) return name.data();
  return arrival_kind_names.front().second.data();  // unreachable for a valid kind
}
}  // namespace

nlohmann::json arrival_spec::to_json() const {
  nlohmann::json a;
  a["process"] = name_of_kind(kind);
  switch (kind) {
    case arrival_kind::poisson:
      a["rate_per_s"] = rate_per_s;
      break;
    case arrival_kind::piecewise:
      a["segments"] = nlohmann::json::array();
      for (const auto& seg : segments)
        a["segments"].push_back({{"duration_s", seg.duration_s}, {"rate_per_s", seg.rate_per_s}});
      break;
    case arrival_kind::trace:
      a["trace_file"] = trace_file;
      break;
    case arrival_kind::renewal:
      a["interarrival_s"] = write_distribution(interarrival_s);
      break;
    case arrival_kind::surge:
      a["base_rate_per_s"] = surge.base_rate_per_s;
      a["peak_rate_per_s"] = surge.peak_rate_per_s;
      a["half_life_s"] = surge.half_life_s;
      if (std::isfinite(surge.duration_s)) a["duration_s"] = surge.duration_s;
      break;
  }
  a["backlog_users"] = backlog_users;
  return a;
}

sim::arrival_process make_arrival_process(const arrival_spec& a) {
  switch (a.kind) {
    case arrival_kind::poisson:
      return sim::arrival_process::poisson(a.rate_per_s);
    case arrival_kind::piecewise:
      return sim::arrival_process::piecewise(a.segments);
    case arrival_kind::trace:
      return sim::arrival_process::replay(a.trace);
    case arrival_kind::renewal:
      return sim::arrival_process::renewal(a.interarrival_s);
    case arrival_kind::surge:
      return sim::arrival_process::surge(a.surge);
  }
  return sim::arrival_process::poisson(1.0);
}

}  // namespace waitroom::models
