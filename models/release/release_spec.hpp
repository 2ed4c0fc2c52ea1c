#pragma once
// How users leave the waiting room for the backend.
#include <cstdint>
#include <vector>

#include "sim/core/distribution.hpp"
#include "sim/core/time.hpp"

namespace waitroom::models {

enum class release_mode {
  tick,         // every interval, atomically take the first `batch` (ZRANGE + ZREM in Lua)
  concurrency,  // at most `slots` users in the backend; a finished session admits the next
};

// Which list the next released user comes from when a scenario has several lists.
enum class selection_kind {
  strict,         // the first non-empty list, like BRPOP high medium low (seed 004)
  ratio,          // lists share each release by weight, e.g. 7 VIP : 3 normal (seed 000 layer 2)
  probabilistic,  // start the scan at list i with probability p_i (seed 004)
  lottery,        // draw waiting users at random, weighted by class (seed 000 layer 3)
  scheduler,      // the list with the oldest head and the most users first (seed 003)
};

struct weight_change {
  double at_s;
  std::vector<double> weights;
};

struct selection_spec {
  selection_kind kind = selection_kind::strict;
  std::vector<double> weights;              // ratio: one per list
  bool work_conserving = true;              // ratio: an empty list's share passes on
  std::vector<weight_change> schedule;      // ratio: weights changed during the run
  std::vector<double> start_probabilities;  // probabilistic: one per list
  std::vector<double> class_weights;        // lottery: one per class
  double age_weight = 1.0;                  // scheduler: per second the head has waited
  double length_weight = 0.0;               // scheduler: per user in the list
};

struct release_spec {
  release_mode mode = release_mode::tick;
  sim::sim_time interval = sim::sim_time::from_ms(200);
  std::uint32_t batch = 1;
  std::uint32_t slots = 1;
  sim::distribution session = sim::distribution::exponential(1.0);  // seconds
  selection_spec selection;
};

const char* to_string(release_mode m);
const char* to_string(selection_kind k);

}  // namespace waitroom::models
