#pragma once
// Chooses the list each released user comes from (strict, ratio, probabilistic). The room
// pops the user; this class only decides, so it is tested on its own.
#include <cstdint>
#include <vector>

#include "models/release/release_spec.hpp"
#include "sim/random.hpp"

namespace waitroom::models {

class list_selector {
 public:
  static constexpr int none =
      -1;  // nothing to release, or (ratio, not work-conserving) a lost unit

  list_selector(const selection_spec& spec, std::size_t lists);

  // The list for the next released unit given the lists' current sizes.
  int pick(const std::vector<std::uint64_t>& sizes, sim::rng& r);
  void set_weights(const std::vector<double>& w);

 private:
  int pick_ratio(const std::vector<std::uint64_t>& sizes);
  int first_non_empty_from(std::size_t start, const std::vector<std::uint64_t>& sizes) const;

  selection_kind kind_;
  bool work_conserving_;
  std::vector<double> weights_;
  std::vector<double> current_;  // smooth weighted round-robin credit
  std::vector<double> start_cumulative_;
};

}  // namespace waitroom::models
