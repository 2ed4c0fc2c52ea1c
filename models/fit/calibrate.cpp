#include "models/fit/calibrate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/beta.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "models/fit/sample.hpp"
#include "models/json/distribution_json.hpp"
#include "sim/input_error.hpp"
#include "sim/random.hpp"
#include "sim/sample_quantile.hpp"

namespace waitroom::models::fit {

namespace {

using nlohmann::json;

constexpr double least_wait_s = 1e-3;  // a give-up logged at the join counts as 1 ms

void count(std::vector<std::uint64_t>& bins, double t, double bin_s) {
  const auto b = static_cast<std::size_t>(std::max(0.0, std::floor(t / bin_s)));
  if (b >= bins.size()) bins.resize(b + 1, 0);
  ++bins[b];
}

json fits_json(const std::vector<survival_fit>& fits) {
  json out = json::array();
  for (const auto& f : fits) {
    json params = json::object();
    for (const auto& p : f.parameters)
      params[p.name] = {{"value", p.value}, {"lo", p.lo}, {"hi", p.hi}};
    out.push_back({{"family", name_of(f.kind)},
                   {"parameters", params},
                   {"mean_s", f.mean_s()},
                   {"log_likelihood", f.log_likelihood},
                   {"aic", f.aic},
                   {"ks_distance", f.ks_distance},
                   {"n", f.n},
                   {"events", f.events}});
  }
  return out;
}

// The Kaplan-Meier curve (at most 400 of its steps, evenly by index, and the last) with its
// interval and the best family's fitted survival at the same times.
json km_json(const class_calibration& cl) {
  json t = json::array(), s = json::array(), lo = json::array(), hi = json::array(),
       fitted = json::array();
  const auto& km = cl.kaplan_meier;
  const std::size_t stride = std::max<std::size_t>(1, (km.size() + 399) / 400);
  for (std::size_t i = 0; i < km.size(); i += stride) {
    const std::size_t j = i + stride >= km.size() ? km.size() - 1 : i;
    t.push_back(km[j].t_s);
    s.push_back(km[j].survival);
    lo.push_back(km[j].lo);
    hi.push_back(km[j].hi);
    if (!cl.patience.empty()) fitted.push_back(cl.patience.front().survival(km[j].t_s));
  }
  return {{"t_s", t}, {"survival", s}, {"lo", lo}, {"hi", hi}, {"fitted", fitted}};
}

// An observation as it streams: a give-up or a release (t: the wait), or a user still waiting
// at the log's end (t: when they joined; the wait is known once the end is).
struct pending {
  double t = 0;
  enum class kind : std::uint8_t { event, censored, waiting } k = kind::event;
};

// The sample's observations, in the order they streamed with the users still waiting last
// (censored at the log's end): below the sample's size, exactly every observation.
std::vector<observation> observations(const reservoir<pending>& r, double end_s) {
  std::vector<observation> out;
  out.reserve(r.items().size());
  for (const auto& p : r.items())
    if (p.k != pending::kind::waiting) out.push_back({p.t, p.k == pending::kind::event});
  for (const auto& p : r.items())
    if (p.k == pending::kind::waiting && end_s > p.t) out.push_back({end_s - p.t, false});
  return out;
}

// Whether each bin's queue ever ran empty, from the users' joins (in order) and exits (released
// or gave up): an exit first at a tie, so a user released as they join never counts as
// waiting. The exits still to come are held in a heap: memory grows with the longest queue,
// not with the log.
class busy_bins {
 public:
  explicit busy_bins(double bin_s) : bin_s_(bin_s) {}

  void join(double t, std::optional<double> exit) {
    exits_before(t);
    if (exit && *exit <= t) return;  // released or gave up at the instant of joining
    at(t, +1);
    if (exit) {
      pending_.push_back(*exit);
      std::push_heap(pending_.begin(), pending_.end(), std::greater<>());
    }
  }

  // Each of the first `bins` bins' least queue length (0: the queue ran empty in it).
  std::vector<std::uint64_t> least(std::size_t bins) {
    exits_before(std::numeric_limits<double>::infinity());
    while (least_.size() < bins) next_bin();
    least_.resize(bins);
    return least_;
  }

 private:
  void exits_before(double t) {
    while (!pending_.empty() && pending_.front() <= t) {
      std::pop_heap(pending_.begin(), pending_.end(), std::greater<>());
      at(pending_.back(), -1);
      pending_.pop_back();
    }
  }

  void at(double t, int d) {
    const auto b = static_cast<std::size_t>(std::max(0.0, std::floor(t / bin_s_)));
    while (least_.size() < b) next_bin();
    queue_ = d > 0 ? queue_ + 1 : queue_ - std::min<std::uint64_t>(queue_, 1);
    lowest_ = std::min(lowest_, queue_);
  }

  void next_bin() {
    least_.push_back(lowest_);
    lowest_ = queue_;
  }

  double bin_s_;
  std::vector<double> pending_;  // a min-heap of exit times
  std::vector<std::uint64_t> least_;
  std::uint64_t queue_ = 0, lowest_ = 0;
};

}  // namespace

std::pair<double, double> share_interval(std::uint64_t k, std::uint64_t n) {
  const auto kd = static_cast<double>(k), nd = static_cast<double>(n);
  const double lo =
      k == 0 ? 0.0
             : boost::math::quantile(boost::math::beta_distribution<>(kd, nd - kd + 1), 0.025);
  const double hi =
      k == n ? 1.0
             : boost::math::quantile(boost::math::beta_distribution<>(kd + 1, nd - kd), 0.975);
  return {lo, hi};
}

calibration calibrate(std::istream& in, const std::string& name, const calibrate_options& o) {
  calibration c;
  c.log = name;
  c.bin_s = o.bin_s;
  std::map<std::string, std::size_t> index;
  const auto sample = [&](std::string_view of) {
    return reservoir<pending>(o.sample, sim::stable_hash(of));
  };
  std::vector<reservoir<pending>> patience;
  reservoir<pending> service = sample("service");
  std::vector<std::pair<double, int>> backend;  // +1 reached, -1 done
  busy_bins busy(o.bin_s);
  double first_release = std::numeric_limits<double>::infinity(), last_release = -first_release;
  std::uint64_t released = 0, reached = 0, traced_no_shows = 0, serviced = 0;
  read_event_log(in, name, o.unit, [&](const user_record& r) {
    if (c.users++ == 0) c.start_s = r.joined_s;
    count(c.arrivals_per_bin, r.joined_s - c.start_s, o.bin_s);
    auto [it, added] = index.try_emplace(r.user_class, c.classes.size());
    if (added) {
      c.classes.push_back({r.user_class});
      patience.push_back(sample("patience:" + r.user_class));
    }
    class_calibration& cl = c.classes[it->second];
    ++cl.users;
    c.end_s = std::max(c.end_s, r.joined_s);
    for (const auto& t : {r.released_s, r.left_s, r.reached_s, r.done_s})
      if (t) c.end_s = std::max(c.end_s, *t);
    std::optional<double> exit;
    if (r.left_s || r.released_s) exit = r.left_s.value_or(*r.released_s) - c.start_s;
    busy.join(r.joined_s - c.start_s, exit);
    if (r.left_s) {
      ++cl.gave_up;
      patience[it->second].add({std::max(*r.left_s - r.joined_s, least_wait_s)});
    } else if (r.released_s) {
      ++cl.released;
      ++released;
      const double w = *r.released_s - r.joined_s;
      if (w > 0) patience[it->second].add({w, pending::kind::censored});
      cl.released_waits_s.push_back(w);
      count(c.released_per_bin, *r.released_s - c.start_s, o.bin_s);
      first_release = std::min(first_release, *r.released_s);
      last_release = std::max(last_release, *r.released_s);
      traced_no_shows += r.no_show;
    } else {
      ++cl.waiting;
      patience[it->second].add({r.joined_s, pending::kind::waiting});
    }
    if (r.reached_s) {
      ++reached;
      if (r.done_s) {
        ++serviced;
        service.add({std::max(*r.done_s - *r.reached_s, least_wait_s)});
        backend.emplace_back(*r.reached_s, 1);
        backend.emplace_back(*r.done_s, -1);
      } else {
        service.add({*r.reached_s, pending::kind::waiting});
      }
    }
  });
  for (std::size_t k = 0; k < c.classes.size(); ++k) {
    c.classes[k].patience_observations = patience[k].seen();
    c.classes[k].patience_sampled = patience[k].sampled();
    if (c.classes[k].gave_up > 0) {
      const auto obs = observations(patience[k], c.end_s);
      c.classes[k].patience = fit_families(obs);  // empty with too few to fit
      c.classes[k].kaplan_meier = kaplan_meier(obs);
    }
  }
  c.segments = fit_change_points(c.arrivals_per_bin, o.bin_s);
  if (last_release > first_release)
    c.throughput_per_s = static_cast<double>(released) / (last_release - first_release);
  const auto least = busy.least(c.released_per_bin.size());
  std::uint64_t busy_released = 0;
  for (std::size_t k = 0; k < least.size(); ++k)
    if (least[k] > 0) {
      ++c.busy_bins;
      busy_released += c.released_per_bin[k];
    }
  if (c.busy_bins > 0)
    c.release_rate_per_s =
        static_cast<double>(busy_released) / (static_cast<double>(c.busy_bins) * o.bin_s);
  if (serviced > 0) {
    c.service_observations = service.seen();
    c.service_sampled = service.sampled();
    c.service = fit_families(observations(service, c.end_s));
    std::sort(backend.begin(), backend.end());  // a departure before an arrival at one instant
    std::int64_t now = 0;
    for (const auto& [t, d] : backend) {
      now += d;
      c.peak_in_backend =
          std::max(c.peak_in_backend, static_cast<std::uint64_t>(std::max<std::int64_t>(now, 0)));
    }
  }
  // A log that records arrivals at the backend: a released user without one never came.
  if (reached > 0 || traced_no_shows > 0) {
    c.released_known = released;
    c.no_shows = traced_no_shows > 0 ? traced_no_shows : released - std::min(released, reached);
  }
  return c;
}

json scenario_json(const calibration& c, const std::string& name) {
  json classes = json::array();
  for (const auto& cl : c.classes) {
    json k{{"name", cl.name},
           {"share", static_cast<double>(cl.users) / static_cast<double>(c.users)}};
    if (!cl.patience.empty())
      k["patience_s"] = write_distribution(cl.patience.front().as_distribution());
    classes.push_back(k);
  }
  json segments = json::array();
  for (const auto& s : c.segments)
    segments.push_back({{"duration_s", s.duration_s}, {"rate_per_s", s.rate_per_s}});
  // The scenario's backend (when the log shows service times) reclaims a no-show's release
  // and releases one more (reclaim_s), as the rooms that log no-shows do: the releases counted
  // include those, so the rate written is net of them.
  const double no_show =
      !c.service.empty() && c.released_known > 0
          ? static_cast<double>(c.no_shows) / static_cast<double>(c.released_known)
          : 0.0;
  // In users per second: the reader makes it a whole batch about every 200 ms, the interval
  // batch / rate to the nanosecond.
  const double rate =
      (c.release_rate_per_s > 0 ? c.release_rate_per_s : c.throughput_per_s) * (1 - no_show);
  if (!(rate > 0)) {  // no rate is better than a made-up one
    std::uint64_t released = 0;
    for (const auto& cl : c.classes) released += cl.released;
    throw sim::input_error(c.log,
                           "users released at two or more moments (the release rate is fitted "
                           "from them)",
                           fmt::format("{} released", released));
  }
  json out{{"name", name},
           {"description",
            fmt::format("Fitted by waitroom fit from {}: {} users, {} class(es), {} arrival "
                        "segment(s); released at {:.2f} users/s",
                        c.log, c.users, c.classes.size(), c.segments.size(), rate)},
           {"classes", classes},
           {"arrivals", {{"process", "piecewise"}, {"segments", segments}}},
           {"release", {{"mode", "tick"}, {"rate_per_s", rate}}}};
  if (!c.service.empty()) {
    json b{{"workers", std::max<std::uint64_t>(1, c.peak_in_backend)},
           {"service_s", write_distribution(c.service.front().as_distribution())}};
    if (no_show > 0) b["no_show_probability"] = no_show;
    out["backend"] = b;
  }
  return out;
}

json fit_json(const calibration& c) {
  json classes = json::array();
  for (const auto& cl : c.classes) {
    const auto [lo, hi] = share_interval(cl.users, c.users);
    json k{{"name", cl.name},
           {"users", cl.users},
           {"share",
            {{"value", static_cast<double>(cl.users) / static_cast<double>(c.users)},
             {"lo", lo},
             {"hi", hi}}},
           {"released", cl.released},
           {"gave_up", cl.gave_up},
           {"waiting_at_end", cl.waiting},
           {"patience", fits_json(cl.patience)}};
    if (cl.patience_sampled) k["patience_sampled_from"] = cl.patience_observations;
    k["kaplan_meier"] = km_json(cl);
    // The released users' waits at each whole percent (0: the least, 100: the most).
    json quantiles = json::array();
    if (!cl.released_waits_s.empty()) {
      std::vector<double> w = cl.released_waits_s;
      std::sort(w.begin(), w.end());
      for (int q = 0; q <= 100; ++q) quantiles.push_back(sim::sorted_quantile(w, q / 100.0));
    }
    k["released_wait_percentiles_s"] = quantiles;
    classes.push_back(k);
  }
  json segments = json::array();
  for (const auto& s : c.segments)
    segments.push_back({{"start_s", s.start_s},
                        {"duration_s", s.duration_s},
                        {"arrivals", s.arrivals},
                        {"rate_per_s", {{"value", s.rate_per_s}, {"lo", s.lo}, {"hi", s.hi}}}});
  // Per minute (whole bins), for the report's chart of arrivals against the fitted rate.
  json per_minute = json::array();
  const auto bins_a_minute =
      std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(60 / c.bin_s)));
  for (std::size_t b = 0; b < c.arrivals_per_bin.size(); b += bins_a_minute) {
    std::uint64_t n = 0;
    for (std::size_t k = b; k < std::min(b + bins_a_minute, c.arrivals_per_bin.size()); ++k)
      n += c.arrivals_per_bin[k];
    per_minute.push_back(n);
  }
  json out{{"kind", "fit"},
           {"log", c.log},
           {"users", c.users},
           {"arrivals_per_minute", per_minute},
           {"span_s", c.end_s - c.start_s},
           {"bin_s", c.bin_s},
           {"arrivals", segments},
           {"classes", classes},
           {"release_rate_per_s", c.release_rate_per_s},
           {"busy_s", static_cast<double>(c.busy_bins) * c.bin_s},
           {"throughput_per_s", c.throughput_per_s},
           {"service", fits_json(c.service)}};
  if (c.service_sampled) out["service_sampled_from"] = c.service_observations;
  if (c.released_known > 0) {
    const auto [lo, hi] = share_interval(c.no_shows, c.released_known);
    out["no_show_share"] = {
        {"value", static_cast<double>(c.no_shows) / static_cast<double>(c.released_known)},
        {"lo", lo},
        {"hi", hi}};
  }
  return out;
}

}  // namespace waitroom::models::fit
