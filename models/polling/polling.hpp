#pragma once
// The users' side of the waiting page: polls of the status endpoint, the Redis commands they
// and the room cost, the rank a user is shown, and four ETA estimators.
//
// Cost model: every user's polls are counted exactly, but without an event per poll. A
// user's poll times are a pure function of its entry time and of the interval the server
// suggested at each lookup (the cached answer carries the old suggestion), so they are walked
// in a tight loop when the user leaves the queue (poll_counter::walk). Only a sample of users
// (follow_share, chosen by a hash of the serial) gets a real event per poll, because reading
// their rank needs the queue as it is at that moment (poll_follower).
#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/spec/scenario.hpp"
#include "sim/histogram.hpp"
#include "sim/moments.hpp"

namespace waitroom::models {

constexpr std::size_t eta_estimator_count = 4;
// In this order: people ahead / mean release rate; the Redis ZSet VIP article's weighted smoothing
// of the last rounds' release rate; people ahead / recent leave rate; a linear fit of the
// served position over the last samples.
const std::vector<std::string>& eta_estimator_names();

struct eta_accuracy {
  std::uint64_t predictions = 0;  // polls that showed an estimate, by users later released
  std::uint64_t unavailable = 0;  // polls where the estimator had no rate yet
  sim::running_moments error_s;   // predicted - realised remaining wait (mean = bias)
  sim::running_moments abs_error_s;
  sim::log_histogram abs_error_ns;  // for the p90
  sim::running_moments user_mae_s;  // one value per user: the unit for confidence
  void merge(const eta_accuracy& o);
};

// The rank a followed user was shown at each poll, raw and smoothed (for the report's chart
// of a few users: what the page shows as the queue moves).
struct rank_point {
  double t_s;
  std::uint64_t raw, smoothed;
};
struct rank_trail {
  std::uint32_t user;
  std::vector<rank_point> points;
};

struct follow_class_result {
  // The class's first followed users who polled at least min_trail_polls times.
  static constexpr std::size_t max_trails = 3;
  static constexpr std::uint32_t min_trail_polls = 10;
  std::uint64_t users = 0;  // followed users of the class who polled at least once
  std::uint64_t polls = 0;
  // Per user: how often the shown position moved backwards, with the raw rank and with the
  // minimum over the last smooth_rank_s.
  sim::running_moments backwards_raw, backwards_smoothed;
  std::uint64_t users_backwards_raw = 0, users_backwards_smoothed = 0;
  std::vector<eta_accuracy> eta;   // one per estimator; users who were released only
  std::vector<rank_trail> trails;  // at most max_trails, in the order the users left
  void merge(const follow_class_result& o);
};

// Per-second counts (index = whole seconds of simulated time).
struct command_series {
  std::vector<std::uint64_t> enter, remove, release, waiting_polls, lookups, discoveries,
      post_release_polls, uncached_discoveries;
};

struct polling_result {
  std::string rank_command, length_command, enter_command, remove_command;
  command_series per_second;
  sim::running_moments discovery_delay_s;  // release -> the lookup that tells the user
  std::uint64_t followed_users = 0;
  std::vector<follow_class_result> by_class;
  // Seconds up to the last one with anything counted.
  std::size_t seconds_used() const;
  // Redis commands in each of those seconds, by command: with the status cache (a lookup is
  // rank + length, the lookup that finds the release rank + the released set), or for the
  // same polls with every poll a lookup. One row per distinct command name (a lottery's rank
  // lookup and the released check are both SISMEMBER).
  using command_rows = std::vector<std::pair<std::string, std::vector<std::uint64_t>>>;
  command_rows commands(bool with_cache) const;
  std::uint64_t peak_commands_per_second() const;
};

// Counts arithmetic progressions of poll times (first + k * interval, k < count) per second
// in O(1) each. With g = gcd(interval, 1 s), poll k falls in second floor((a + k p) / q) where
// a = first / g, p = interval / g and q = 1 s / g: a progression of stride p on a grid of g,
// kept as a difference array and summed at the end. Where g is under 100 ms (odd
// intervals), the grid would be too fine and the polls are counted one by one instead.
class progression_counter {
 public:
  explicit progression_counter(std::int64_t interval_ns);
  void add(std::int64_t first_ns, std::int64_t count, std::vector<std::uint64_t>& per_second);
  // Adds the progressions kept on the grid to per_second (once, at the end).
  void flush(std::vector<std::uint64_t>& per_second);
  std::size_t memory_bytes() const { return diff_.capacity() * sizeof(std::int64_t); }

 private:
  std::int64_t interval_ns_, grid_ns_, stride_, per_second_;
  bool grid_;
  std::vector<std::int64_t> diff_;
};

// The population's polls and the room's own commands.
class poll_counter {
 public:
  poll_counter(const polling_spec& spec, bool lottery, std::size_t classes, std::uint64_t salt = 0);
  // The user's first poll comes this long after entry plus one interval (start_jitter_s).
  std::int64_t start_offset(std::uint32_t user) const;

  // The server's suggestion is refreshed at k * suggest_every_s from the queue length.
  bool suggests() const { return !spec_.suggest.empty(); }
  std::int64_t suggest_every_ns() const { return suggest_every_ns_; }
  void refresh_suggestion(std::uint64_t queue_length);
  // The interval a lookup at time t answers with (refresh k covers (k E, (k+1) E]).
  std::int64_t interval_at(std::int64_t t_ns) const;
  // Polls between two lookups: the next lookup is the first poll cache_s after the last.
  std::int64_t polls_per_lookup(std::int64_t interval_ns) const {
    if (cache_ns_ <= 0) return 1;
    return std::max<std::int64_t>(1, (cache_ns_ + interval_ns - 1) / interval_ns);
  }

  // Counts every poll of a visit that entered at `entry` and left the queue at `exit`
  // (polls at times < exit find it waiting). For a release, also the cached polls until the
  // first lookup at or after exit, which tells the user; returns that time (else exit).
  std::int64_t walk(std::int64_t entry_ns, std::int64_t exit_ns, bool released, std::uint32_t user);

  void count_enter(std::int64_t t_ns) { bump(result_.per_second.enter, t_ns); }
  void count_remove(std::int64_t t_ns) { bump(result_.per_second.remove, t_ns); }
  void count_release(std::int64_t t_ns) { bump(result_.per_second.release, t_ns); }

  // Complete the per-second counts (call once, after the last walk).
  polling_result& finish();
  polling_result& result() { return result_; }
  std::size_t memory_bytes() const {
    std::size_t b = seconds_ * 8 * sizeof(std::uint64_t);
    for (const auto& c : waiting_) b += c.memory_bytes();
    for (const auto& c : looking_) b += c.memory_bytes();
    return b;
  }

 private:
  static std::size_t second_of(std::int64_t t_ns) {
    return static_cast<std::size_t>(t_ns / 1'000'000'000);
  }
  void grow(std::int64_t t_ns);
  void bump(std::vector<std::uint64_t>& v, std::int64_t t_ns) {
    grow(t_ns);
    ++v[second_of(t_ns)];
  }

  const polling_spec& spec_;
  std::int64_t fixed_ns_, cache_ns_, suggest_every_ns_, jitter_ns_;
  std::uint64_t salt_;
  std::vector<std::int64_t> step_ns_;
  std::vector<std::uint8_t> suggestion_;  // step index per refresh
  // Per interval step: waiting polls every interval, lookups every n intervals.
  std::vector<progression_counter> waiting_, looking_;
  std::size_t step_of(std::int64_t interval_ns) const;
  std::size_t seconds_ = 0;
  polling_result result_;
};

// Release history for the ETA estimators: one point per round (a tick, or a sample in
// concurrency mode) per list: cumulative releases and departures (release, abandonment,
// moving up).
class eta_board {
 public:
  eta_board(const polling_spec& spec, std::size_t lists);
  void left(std::uint32_t list, bool released) {
    ++left_[list];
    if (released) ++released_[list];
  }
  void round(std::int64_t now_ns);
  // Seconds until a user with `ahead` people before it in `list` is released, per
  // estimator; NaN where an estimator has no positive rate.
  std::array<double, eta_estimator_count> estimate(std::uint32_t list, std::uint64_t ahead,
                                                   std::int64_t now_ns) const;

 private:
  struct point {
    std::int64_t t_ns;
    std::uint64_t released, left;
  };
  // What depends on the history alone, recomputed each round (not at every lookup): the
  // smoothed release rate, and the fitted line's slope (users per second).
  struct fitted {
    double smoothed_rate = 0;
    bool line = false;
    double slope = 0;
  };
  void refit(std::size_t list);

  const polling_spec& spec_;
  std::vector<std::uint64_t> released_, left_;
  std::vector<std::deque<point>> history_;
  std::vector<fitted> fit_;
};

// Users followed through every poll.
class poll_follower {
 public:
  poll_follower(const polling_spec& spec, std::uint64_t salt, std::size_t classes);
  bool follows(std::uint32_t user) const;
  std::uint64_t started() const { return started_; }
  void start(std::uint32_t user, std::uint32_t user_class, std::int64_t entry_ns);
  // A poll at now: `lookup` says whether the cache had expired; if so the answer is
  // (rank, ETAs) computed now. Returns the interval until the next poll.
  struct answer {
    std::uint64_t rank;
    std::array<double, eta_estimator_count> eta;
  };
  struct record;
  // The user's record while it waits (else null), found once per poll.
  record* find(std::uint32_t user) {
    auto it = users_.find(user);
    return it == users_.end() ? nullptr : &it->second;
  }
  // True when this poll is a lookup (the caller then supplies the fresh answer).
  static bool due_lookup(const record& r, std::int64_t now_ns) {
    return now_ns >= r.next_lookup_ns;
  }
  std::int64_t poll(record& r, std::int64_t now_ns, const answer* fresh,
                    const poll_counter& counter);
  // The user left the queue: released (the realised waits score the predictions) or not.
  void finish(std::uint32_t user, std::int64_t now_ns, bool released);
  void finish_all(std::int64_t now_ns);  // still waiting at the end: no realised wait
  std::vector<follow_class_result>& results() { return by_class_; }
  // Approximate: the records and the predictions they hold.
  std::size_t memory_bytes() const {
    return users_.size() *
               (sizeof(record) + 32 + 4 * sizeof(std::pair<std::int64_t, std::uint64_t>)) +
           predictions_ * sizeof(prediction);
  }

 private:
  struct prediction {
    float at_s;  // since entry
    std::array<float, eta_estimator_count> eta_s;
  };

 public:
  struct record {
    std::uint32_t user_class;
    std::int64_t entry_ns;
    std::int64_t next_lookup_ns;
    std::int64_t interval_ns = 0;
    std::uint32_t polls = 0, back_raw = 0, back_smoothed = 0;
    std::uint64_t raw = 0, smoothed = 0;  // the answer shown
    std::array<double, eta_estimator_count> eta{};
    // Lookups in the window: a few (window / interval), so a vector, not a deque's 512-byte
    // first block per followed user.
    std::vector<std::pair<std::int64_t, std::uint64_t>> recent;
    std::vector<prediction> predictions;
    bool keeps_trail = false;
    std::vector<rank_point> trail;
  };

 private:
  const polling_spec& spec_;
  std::uint64_t salt_;
  std::uint64_t threshold_;
  std::unordered_map<std::uint32_t, record> users_;
  std::size_t predictions_ = 0;  // held by live records
  std::uint64_t started_ = 0;    // users followed so far
  std::vector<follow_class_result> by_class_;
  std::vector<std::size_t> trails_open_;  // per class: users keeping a trail now
};

}  // namespace waitroom::models
