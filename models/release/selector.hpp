#pragma once
// Chooses the list each released user comes from (strict, ratio, probabilistic). The room
// pops the user; this class only decides, so it is tested on its own.
#include <cstdint>
#include <vector>

#include "models/spec/release_spec.hpp"
#include "sim/random.hpp"

namespace waitroom::models {

class list_selector {
 public:
  static constexpr int none =
      -1;  // nothing to release, or (ratio, not work-conserving) a lost unit

  list_selector(const selection_spec& spec, std::size_t lists);

  // The list for the next released unit given the lists' current sizes, by the spec's
  // policy (one that needs the users themselves cannot pick here: see selection.hpp).
  int pick(const std::vector<std::uint64_t>& sizes, sim::rng& r);
  void set_weights(const std::vector<double>& w);
  // Ratio only: every non-empty list has weight 0, so no release can ever come from them.
  bool starves(const std::vector<std::uint64_t>& sizes) const;

  // The policies' state: smooth weighted round-robin, the probabilistic start, a scan.
  int pick_ratio(const std::vector<std::uint64_t>& sizes);
  int pick_start(const std::vector<std::uint64_t>& sizes, sim::rng& r) const;
  int first_non_empty(std::size_t start, const std::vector<std::uint64_t>& sizes) const;

  // Read-only, for a live Redis that makes the same choice (redis/mirror.hpp): the ratio's
  // weights and credit, and how many times set_weights ran (it resets the credit).
  const std::vector<double>& weights() const { return weights_; }
  const std::vector<double>& credit() const { return current_; }
  std::uint64_t weight_changes() const { return weight_changes_; }

 private:
  selection_kind kind_;
  bool work_conserving_;
  std::vector<double> weights_;
  std::vector<double> current_;  // smooth weighted round-robin credit
  std::vector<double> start_cumulative_;
  std::uint64_t weight_changes_ = 0;
};

}  // namespace waitroom::models
