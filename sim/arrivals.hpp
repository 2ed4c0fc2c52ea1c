#pragma once
// Arrival processes: Poisson, piecewise-constant-rate Poisson (a flash crowd), a decaying
// surge, renewal (independent interarrival times from any distribution), and replay of a
// recorded trace. An initial backlog is the model's business (K users at t = 0).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sim/distribution.hpp"
#include "sim/random.hpp"
#include "sim/time.hpp"

namespace waitroom::sim {

struct rate_segment {
  double duration_s;  // may be +infinity for the last segment
  double rate_per_s;  // 0 is allowed (a quiet period)
};

// A surge at the opening that decays (a ticket drop, a TV ad): Poisson arrivals at
// rate(t) = base + (peak - base) 2^(-t / half_life) for 0 <= t < duration_s, none after
// (duration_s infinite: no end; with base 0 the surge still ends, after about
// peak half_life / ln 2 users on average).
struct surge_shape {
  double base_rate_per_s = 0.0;
  double peak_rate_per_s = 0.0;
  double half_life_s = 1.0;
  double duration_s = std::numeric_limits<double>::infinity();

  double rate_at(double t_s) const;
  // The expected arrivals in [0, t_s]: base t + (peak - base) half_life / ln 2
  // (1 - 2^(-t / half_life)), t cut at the duration (infinite when they never end).
  double expected_by(double t_s) const;
  // The decaying part's expected arrivals over all time, (peak - base) half_life / ln 2.
  double decay_total() const;
};

struct trace_record {
  sim_time time;
  std::uint32_t user_class;
  std::uint64_t user_id;  // 0 when the trace has none
};

struct arrival {
  sim_time time;
  std::int32_t user_class;  // -1: draw from the class mix; otherwise given by a trace
};

class arrival_process {
 public:
  static arrival_process poisson(double rate_per_s);
  static arrival_process piecewise(std::vector<rate_segment> segments);
  static arrival_process replay(std::vector<trace_record> records);
  // An ordinary renewal process: the first arrival one interarrival draw after 0, each
  // next one a fresh draw later (negative draws, from a normal, count as 0).
  static arrival_process renewal(distribution interarrival_s);
  // Exact: the surge is the union of two independent Poisson processes, the base rate's and
  // the decaying part's, whose cumulative rate is inverted in closed form.
  static arrival_process surge(surge_shape shape);

  // The next arrival after the previous one; false when the process is exhausted.
  // Inline: one draw within the current segment; the rest (segment boundaries, replay)
  // continues out of line exactly where this leaves off.
  bool next(rng& r, arrival& out) {
    if (kind_ == kind::piecewise && segment_ < segments_.size()) {
      const auto& seg = segments_[segment_];
      if (seg.rate_per_s > 0.0) {
        double t = t_s_ - std::log(r.uniform_open0()) / seg.rate_per_s;
        sim_time at = sim_time::from_seconds(t);
        if (at < segment_end_[segment_]) {
          t_s_ = t;
          out = {at, -1};
          return true;
        }
      }
      next_segment();
    }
    return next_slow(r, out);
  }
  // Expected number of arrivals (infinite for an unbounded Poisson process).
  double expected_count() const;

 private:
  bool next_slow(rng& r, arrival& out);
  void next_segment();
  bool next_surge(rng& r, arrival& out);
  void draw_surge_base(rng& r);
  void draw_surge_decay(rng& r);
  enum class kind { piecewise, replay, renewal, surge };
  kind kind_ = kind::piecewise;
  std::vector<rate_segment> segments_;
  std::vector<sim_time> segment_end_;
  std::size_t segment_ = 0;
  double t_s_ = 0.0;  // current time in seconds within the piecewise process
  std::vector<trace_record> records_;
  std::size_t next_record_ = 0;
  distribution interarrival_s_;
  // The surge: each part's next arrival (infinite: none), and the decaying part's
  // 2^(-t / half_life) at its last arrival.
  surge_shape surge_;
  sim_time surge_end_ = sim_time::max();
  bool surge_started_ = false;
  double base_next_s_ = std::numeric_limits<double>::infinity();
  double decay_next_s_ = std::numeric_limits<double>::infinity();
  double decay_left_ = 1.0;
};

// Draws a class index from shares (which sum to 1) with one uniform per draw.
class class_mix {
 public:
  explicit class_mix(const std::vector<double>& shares);
  std::uint32_t draw(rng& r) const {
    if (cumulative_.size() <= 1) return 0;
    const double u = r.uniform01();
    // Counted rather than searched: the class is random, so a search's exit would mispredict.
    // The sums do not decrease, so those at most u are the classes before the one drawn.
    std::uint32_t i = 0;
    for (std::size_t j = 0; j + 1 < cumulative_.size(); ++j) i += u >= cumulative_[j] ? 1 : 0;
    return i;
  }

 private:
  std::vector<double> cumulative_;
};

// Reads a CSV trace: `timestamp_s,class[,user_id]`, an optional header line, '#' comments.
// Timestamps must not decrease. Class names map through `class_names`. Throws input_error
// naming the file and line.
std::vector<trace_record> read_trace_csv(const std::string& path,
                                         const std::vector<std::string>& class_names);
// The same reader on text already in memory (the fuzzer's entry point): the same checks as
// a file's (no NUL byte, byte-order mark or UTF-16), with `name` naming it in errors.
std::vector<trace_record> parse_trace_csv(const std::string& text, const std::string& name,
                                          const std::vector<std::string>& class_names);

}  // namespace waitroom::sim
