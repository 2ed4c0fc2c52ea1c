#include "models/polling/polling.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <Eigen/Dense>

#include "sim/random.hpp"
#include "sim/time.hpp"

namespace waitroom::models {

const std::vector<std::string>& eta_estimator_names() {
  static const std::vector<std::string> names{"ahead_over_mean_rate", "smoothed_rounds",
                                              "ahead_over_recent_leave_rate", "linear_fit"};
  return names;
}

void eta_accuracy::merge(const eta_accuracy& o) {
  predictions += o.predictions;
  unavailable += o.unavailable;
  error_s.merge(o.error_s);
  abs_error_s.merge(o.abs_error_s);
  abs_error_ns.merge(o.abs_error_ns);
  user_mae_s.merge(o.user_mae_s);
}

void follow_class_result::merge(const follow_class_result& o) {
  users += o.users;
  polls += o.polls;
  backwards_raw.merge(o.backwards_raw);
  backwards_smoothed.merge(o.backwards_smoothed);
  users_backwards_raw += o.users_backwards_raw;
  users_backwards_smoothed += o.users_backwards_smoothed;
  eta.resize(std::max(eta.size(), o.eta.size()));
  for (std::size_t i = 0; i < o.eta.size(); ++i) eta[i].merge(o.eta[i]);
  for (const auto& t : o.trails)
    if (trails.size() < max_trails) trails.push_back(t);
}

namespace {
std::int64_t ns_of(double s) {
  return sim::sim_time::from_seconds(s).ns();
}
}  // namespace

std::size_t polling_result::seconds_used() const {
  const auto& s = per_second;
  std::size_t n = 0;
  for (const auto* v : {&s.enter, &s.remove, &s.release, &s.waiting_polls, &s.discoveries,
                        &s.post_release_polls, &s.uncached_discoveries})
    for (std::size_t i = v->size(); i > n; --i)
      if ((*v)[i - 1]) {
        n = i;
        break;
      }
  return n;
}

polling_result::command_rows polling_result::commands(bool with_cache) const {
  const auto& s = per_second;
  const std::size_t n = seconds_used();
  const std::string released_check = "SISMEMBER";
  command_rows rows;
  for (const auto& name : {enter_command, remove_command, std::string("EVALSHA release"),
                           rank_command, length_command, released_check})
    if (std::none_of(rows.begin(), rows.end(), [&](const auto& r) { return r.first == name; }))
      rows.emplace_back(name, std::vector<std::uint64_t>(n, 0));
  auto add = [&rows, n](const std::string& name, const std::vector<std::uint64_t>& counts,
                        std::uint64_t times) {
    for (auto& [k, v] : rows)
      if (k == name)
        for (std::size_t i = 0; i < n && i < counts.size(); ++i) v[i] += times * counts[i];
  };
  add(enter_command, s.enter, 1);
  add(remove_command, s.remove, 1);
  add("EVALSHA release", s.release, 1);
  const auto& lookups = with_cache ? s.lookups : s.waiting_polls;
  const auto& told = with_cache ? s.discoveries : s.uncached_discoveries;
  add(rank_command, lookups, 1);
  add(rank_command, told, 1);
  add(length_command, lookups, 1);
  add(released_check, told, 1);
  return rows;
}

std::uint64_t polling_result::peak_commands_per_second() const {
  const auto rows = commands(true);
  std::uint64_t peak = 0;
  for (std::size_t i = 0; i < seconds_used(); ++i) {
    std::uint64_t t = 0;
    for (const auto& [name, v] : rows) t += v[i];
    peak = std::max(peak, t);
  }
  return peak;
}

progression_counter::progression_counter(std::int64_t interval_ns) : interval_ns_(interval_ns) {
  constexpr std::int64_t second = 1'000'000'000;
  grid_ns_ = std::gcd(interval_ns, second);
  grid_ = grid_ns_ >= 100'000'000;
  stride_ = interval_ns / grid_ns_;
  per_second_ = second / grid_ns_;
}

void progression_counter::add(std::int64_t first, std::int64_t count,
                              std::vector<std::uint64_t>& per_second) {
  if (count <= 0) return;
  if (!grid_) {
    for (std::int64_t k = 0; k < count; ++k)
      ++per_second[static_cast<std::size_t>((first + k * interval_ns_) / 1'000'000'000)];
    return;
  }
  const auto a = static_cast<std::size_t>(first / grid_ns_);
  const std::size_t end = a + static_cast<std::size_t>(count * stride_);
  if (diff_.size() <= end) diff_.resize(std::max(end + 1, diff_.size() * 3 / 2), 0);
  ++diff_[a];
  --diff_[end];
}

void progression_counter::flush(std::vector<std::uint64_t>& per_second) {
  const auto p = static_cast<std::size_t>(stride_);
  for (std::size_t m = p; m < diff_.size(); ++m) diff_[m] += diff_[m - p];
  for (std::size_t m = 0; m < diff_.size(); ++m) {
    if (diff_[m] == 0) continue;
    const std::size_t s = m / static_cast<std::size_t>(per_second_);
    if (s >= per_second.size()) per_second.resize(s + 1, 0);
    per_second[s] += static_cast<std::uint64_t>(diff_[m]);
  }
  diff_.clear();
}

poll_counter::poll_counter(const polling_spec& spec, bool lottery, std::size_t classes,
                           std::uint64_t salt)
    : spec_(spec),
      fixed_ns_(ns_of(spec.interval_s)),
      cache_ns_(ns_of(spec.cache_s)),
      suggest_every_ns_(ns_of(spec.suggest_every_s)),
      jitter_ns_(ns_of(spec.start_jitter_s)),
      salt_(salt) {
  for (const auto& st : spec.suggest) step_ns_.push_back(ns_of(st.interval_s));
  // A lottery keeps users in sets: membership and set size stand in for rank and length.
  result_.rank_command = lottery ? "SISMEMBER" : "ZRANK";
  result_.length_command = lottery ? "SCARD" : "ZCARD";
  result_.enter_command = lottery ? "SADD" : "ZADD";
  result_.remove_command = lottery ? "SREM" : "ZREM";
  result_.by_class.resize(classes);
  for (std::int64_t i : step_ns_.empty() ? std::vector<std::int64_t>{fixed_ns_} : step_ns_) {
    waiting_.emplace_back(i);
    looking_.emplace_back(polls_per_lookup(i) * i);
  }
}

std::size_t poll_counter::step_of(std::int64_t interval_ns) const {
  if (step_ns_.empty()) return 0;
  return static_cast<std::size_t>(std::find(step_ns_.begin(), step_ns_.end(), interval_ns) -
                                  step_ns_.begin());
}

polling_result& poll_counter::finish() {
  auto& s = result_.per_second;
  for (auto& c : waiting_) c.flush(s.waiting_polls);
  for (auto& c : looking_) c.flush(s.lookups);
  // Flushing may have grown one series: keep them all the same length.
  seconds_ = std::max(s.waiting_polls.size(), s.lookups.size());
  for (auto* v : {&s.enter, &s.remove, &s.release, &s.waiting_polls, &s.lookups, &s.discoveries,
                  &s.post_release_polls, &s.uncached_discoveries})
    v->resize(std::max(seconds_, v->size()), 0);
  return result_;
}

void poll_counter::refresh_suggestion(std::uint64_t queue_length) {
  std::size_t k = 0;
  while (k + 1 < spec_.suggest.size() && queue_length >= spec_.suggest[k + 1].above) ++k;
  suggestion_.push_back(static_cast<std::uint8_t>(k));
}

std::int64_t poll_counter::interval_at(std::int64_t t_ns) const {
  if (step_ns_.empty()) return fixed_ns_;
  if (t_ns <= 0 || suggestion_.empty()) return step_ns_.front();
  auto k = static_cast<std::size_t>((t_ns - 1) / suggest_every_ns_);
  return step_ns_[suggestion_[std::min(k, suggestion_.size() - 1)]];
}

void poll_counter::grow(std::int64_t t_ns) {
  const std::size_t need = second_of(t_ns) + 1;
  if (need <= seconds_) return;
  seconds_ = std::max(need, seconds_ + seconds_ / 2);
  auto& s = result_.per_second;
  for (auto* v : {&s.enter, &s.remove, &s.release, &s.waiting_polls, &s.lookups, &s.discoveries,
                  &s.post_release_polls, &s.uncached_discoveries})
    v->resize(seconds_, 0);
}

std::int64_t poll_counter::start_offset(std::uint32_t user) const {
  if (jitter_ns_ == 0) return 0;
  const double u = sim::unit_from_hash(sim::mix64(user ^ salt_));
  return static_cast<std::int64_t>(u * static_cast<double>(jitter_ns_));
}

std::int64_t poll_counter::walk(std::int64_t entry, std::int64_t exit, bool released,
                                std::uint32_t user) {
  grow(exit);  // polls before exit; later ones grow the series as they are counted
  auto& s = result_.per_second;
  // t is a lookup; the polls after it, every `interval`, are answered from the cache until
  // the next lookup n polls later.
  std::int64_t interval = interval_at(entry);
  std::int64_t t = entry + start_offset(user) + interval;  // the first poll always looks up
  std::int64_t last = 0, n = 1;
  bool looked_up = false;
  auto polls_before = [](std::int64_t from, std::int64_t step, std::int64_t until) {
    return until > from ? (until - from + step - 1) / step : std::int64_t{0};
  };
  if (!suggests()) {
    // One interval throughout: the waiting polls and the lookups are two progressions.
    n = polls_per_lookup(interval);
    const std::int64_t lookups = polls_before(t, n * interval, exit);
    waiting_[0].add(t, polls_before(t, interval, exit), s.waiting_polls);
    looking_[0].add(t, lookups, s.lookups);
    if (lookups > 0) {
      looked_up = true;
      last = t + (lookups - 1) * n * interval;
      t = last + n * interval;
    }
  } else {
    while (t < exit) {
      looked_up = true;
      last = t;
      ++s.lookups[second_of(t)];
      interval = interval_at(t);
      n = polls_per_lookup(interval);
      waiting_[step_of(interval)].add(t, std::min(n, polls_before(t, interval, exit)),
                                      s.waiting_polls);
      t += n * interval;
    }
  }
  if (!released) return exit;
  // The first lookup at or after the release (t) tells the user; the polls before it are
  // served from the cache. Without a cache, the first poll at or after the release would.
  std::int64_t uncached = t;
  if (looked_up) {
    for (std::int64_t u = last + interval; u < t; u += interval)
      if (u >= exit) bump(s.post_release_polls, u);
    uncached = last + ((exit - last + interval - 1) / interval) * interval;
  }
  bump(s.discoveries, t);
  bump(s.uncached_discoveries, uncached);
  result_.discovery_delay_s.add(static_cast<double>(t - exit) * 1e-9);
  return t;
}

eta_board::eta_board(const polling_spec& spec, std::size_t lists)
    : spec_(spec), released_(lists, 0), left_(lists, 0), history_(lists), fit_(lists) {}

void eta_board::round(std::int64_t now_ns) {
  const std::size_t keep = std::max<std::size_t>(spec_.eta_rounds + 1, spec_.eta_fit_samples);
  const std::int64_t window = ns_of(spec_.eta_recent_s);
  for (std::size_t l = 0; l < history_.size(); ++l) {
    auto& h = history_[l];
    h.push_back({now_ns, released_[l], left_[l]});
    // Keep the last `keep` points and one point at or before the recent window's start.
    while (h.size() > keep && h[1].t_ns <= now_ns - window) h.pop_front();
    refit(l);
  }
}

void eta_board::refit(std::size_t list) {
  const auto& h = history_[list];
  fitted f;
  // Seed 000: the real release rate of each of the last R rounds, weighted R..1 (the latest
  // heaviest).
  const std::size_t rounds = std::min<std::size_t>(spec_.eta_rounds, h.size() ? h.size() - 1 : 0);
  double sum = 0, weights = 0;
  for (std::size_t i = 0; i < rounds; ++i) {
    const auto& b = h[h.size() - 1 - i];
    const auto& a = h[h.size() - 2 - i];
    const double dt = static_cast<double>(b.t_ns - a.t_ns) * 1e-9;
    if (dt <= 0) continue;
    const double w = static_cast<double>(rounds - i);
    sum += w * static_cast<double>(b.released - a.released) / dt;
    weights += w;
  }
  if (weights > 0) f.smoothed_rate = sum / weights;
  // Least squares of the served position (cumulative releases) on time over the last points,
  // by the normal equations on times centred at their mean (well conditioned).
  const std::size_t m = std::min<std::size_t>(spec_.eta_fit_samples, h.size());
  if (m >= 2) {
    const std::int64_t t_ref = h.back().t_ns;
    double t_mean = 0;
    for (std::size_t i = h.size() - m; i < h.size(); ++i)
      t_mean += static_cast<double>(h[i].t_ns - t_ref) * 1e-9;
    t_mean /= static_cast<double>(m);
    Eigen::Matrix2d xtx = Eigen::Matrix2d::Zero();
    Eigen::Vector2d xty = Eigen::Vector2d::Zero();
    for (std::size_t i = h.size() - m; i < h.size(); ++i) {
      const Eigen::Vector2d row(1.0, static_cast<double>(h[i].t_ns - t_ref) * 1e-9 - t_mean);
      xtx += row * row.transpose();
      xty += row * static_cast<double>(h[i].released);
    }
    const Eigen::Vector2d beta = xtx.ldlt().solve(xty);  // level at the mean time, slope
    if (xtx(1, 1) > 0 && beta(1) > 0) {
      f.line = true;
      f.slope = beta(1);
    }
  }
  fit_[list] = f;
}

std::array<double, eta_estimator_count> eta_board::estimate(std::uint32_t list, std::uint64_t ahead,
                                                            std::int64_t now_ns) const {
  constexpr double none = std::numeric_limits<double>::quiet_NaN();
  std::array<double, eta_estimator_count> out{none, none, none, none};
  const double people = static_cast<double>(ahead) + 1.0;  // released after those ahead
  auto by_rate = [&](double rate) { return rate > 0 ? people / rate : none; };
  const double now_s = static_cast<double>(now_ns) * 1e-9;
  if (now_s > 0) out[0] = by_rate(static_cast<double>(released_[list]) / now_s);
  const fitted& f = fit_[list];
  out[1] = by_rate(f.smoothed_rate);
  // Departures over the recent window, from the latest point at or before its start.
  const auto& h = history_[list];
  if (!h.empty()) {
    const std::int64_t from = now_ns - ns_of(spec_.eta_recent_s);
    std::size_t i = 0;
    while (i + 1 < h.size() && h[i + 1].t_ns <= from) ++i;
    const double dt = static_cast<double>(now_ns - h[i].t_ns) * 1e-9;
    if (dt > 0) out[2] = by_rate(static_cast<double>(left_[list] - h[i].left) / dt);
  }
  // The fitted line's slope, from the served position as it is now: extrapolating the line
  // itself would add the path's distance from its trend (with 1,000 s rounds in an M/M/4,
  // a 63 s error where the rate estimators were within 2 s).
  if (f.line) out[3] = by_rate(f.slope);
  return out;
}

poll_follower::poll_follower(const polling_spec& spec, std::uint64_t salt, std::size_t classes)
    : spec_(spec), salt_(salt), by_class_(classes), trails_open_(classes, 0) {
  for (auto& c : by_class_) c.eta.resize(eta_estimator_count);
  threshold_ = spec.follow_share >= 1.0
                   ? std::numeric_limits<std::uint64_t>::max()
                   : static_cast<std::uint64_t>(std::ldexp(spec.follow_share, 64));
}

bool poll_follower::follows(std::uint32_t user) const {
  if (spec_.follow_share <= 0) return false;
  return spec_.follow_share >= 1.0 || sim::mix64(user ^ salt_) < threshold_;
}

void poll_follower::start(std::uint32_t user, std::uint32_t user_class, std::int64_t entry_ns) {
  record r;
  r.user_class = user_class;
  r.entry_ns = entry_ns;
  r.next_lookup_ns = std::numeric_limits<std::int64_t>::min();  // the first poll looks up
  users_.emplace(user, std::move(r));
  ++started_;
}

std::int64_t poll_follower::poll(record& r, std::int64_t now_ns, const answer* fresh,
                                 const poll_counter& counter) {
  const std::uint64_t before_raw = r.raw, before_smoothed = r.smoothed;
  if (fresh) {
    r.interval_ns = counter.interval_at(now_ns);
    r.next_lookup_ns = sim::sim_time::add_ns(
        now_ns, sim::sim_time::mul_ns(counter.polls_per_lookup(r.interval_ns), r.interval_ns));
    r.raw = fresh->rank;
    r.eta = fresh->eta;
    // The server shows the smallest rank it computed for this user over the window.
    const std::int64_t window = ns_of(spec_.smooth_rank_s);
    r.recent.emplace_back(now_ns, fresh->rank);
    auto first = r.recent.begin();
    while (first->first < now_ns - window) ++first;
    r.recent.erase(r.recent.begin(), first);
    r.smoothed = fresh->rank;
    for (const auto& [t, rank] : r.recent) r.smoothed = std::min(r.smoothed, rank);
  }
  if (r.polls > 0) {
    if (r.raw > before_raw) ++r.back_raw;
    if (r.smoothed > before_smoothed) ++r.back_smoothed;
  }
  // A trail starts at a user's first poll while the class has room for one; one that ends
  // with few polls gives its place to a later user (see finish).
  if (r.polls == 0 && trails_open_[r.user_class] + by_class_[r.user_class].trails.size() <
                          follow_class_result::max_trails) {
    ++trails_open_[r.user_class];
    r.keeps_trail = true;
  }
  ++r.polls;
  if (r.keeps_trail) r.trail.push_back({static_cast<double>(now_ns) * 1e-9, r.raw, r.smoothed});
  prediction p{static_cast<float>(static_cast<double>(now_ns - r.entry_ns) * 1e-9), {}};
  for (std::size_t k = 0; k < eta_estimator_count; ++k) p.eta_s[k] = static_cast<float>(r.eta[k]);
  r.predictions.push_back(p);
  ++predictions_;
  return r.interval_ns;
}

void poll_follower::finish(std::uint32_t user, std::int64_t now_ns, bool released) {
  auto it = users_.find(user);
  if (it == users_.end()) return;
  const record& r = it->second;
  auto& c = by_class_[r.user_class];
  if (r.polls > 0) {
    ++c.users;
    c.polls += r.polls;
    c.backwards_raw.add(r.back_raw);
    c.backwards_smoothed.add(r.back_smoothed);
    if (r.back_raw > 0) ++c.users_backwards_raw;
    if (r.back_smoothed > 0) ++c.users_backwards_smoothed;
  }
  if (r.keeps_trail) {
    --trails_open_[r.user_class];
    if (r.polls >= follow_class_result::min_trail_polls) c.trails.push_back({user, r.trail});
  }
  if (released && !r.predictions.empty()) {
    const double waited = static_cast<double>(now_ns - r.entry_ns) * 1e-9;
    for (std::size_t k = 0; k < eta_estimator_count; ++k) {
      auto& acc = c.eta[k];
      double user_abs = 0;
      std::uint64_t n = 0;
      for (const auto& p : r.predictions) {
        if (std::isnan(p.eta_s[k])) {
          ++acc.unavailable;
          continue;
        }
        const double err = static_cast<double>(p.eta_s[k]) - (waited - static_cast<double>(p.at_s));
        ++acc.predictions;
        acc.error_s.add(err);
        acc.abs_error_s.add(std::abs(err));
        acc.abs_error_ns.add(static_cast<std::int64_t>(std::llround(std::abs(err) * 1e9)));
        user_abs += std::abs(err);
        ++n;
      }
      if (n > 0) acc.user_mae_s.add(user_abs / static_cast<double>(n));
    }
  }
  predictions_ -= r.predictions.size();
  users_.erase(it);
}

void poll_follower::finish_all(std::int64_t now_ns) {
  std::vector<std::uint32_t> left;
  left.reserve(users_.size());
  for (const auto& [user, r] : users_) left.push_back(user);
  std::sort(left.begin(), left.end());  // the map's order is not deterministic across libs
  for (std::uint32_t u : left) finish(u, now_ns, false);
}

}  // namespace waitroom::models
