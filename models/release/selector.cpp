#include "models/release/selector.hpp"

#include "models/release/selection.hpp"

namespace waitroom::models {

list_selector::list_selector(const selection_spec& spec, std::size_t lists)
    : kind_(spec.kind), work_conserving_(spec.work_conserving), current_(lists, 0.0) {
  weights_ = spec.weights;
  if (weights_.size() != lists) weights_.assign(lists, 1.0);
  double c = 0.0;
  for (double p : spec.start_probabilities) start_cumulative_.push_back(c += p);
}

void list_selector::set_weights(const std::vector<double>& w) {
  weights_ = w;
  current_.assign(weights_.size(), 0.0);  // a new ratio starts a new round
  ++weight_changes_;
}

bool list_selector::starves(const std::vector<std::uint64_t>& sizes) const {
  if (kind_ != selection_kind::ratio) return false;
  for (std::size_t i = 0; i < sizes.size() && i < weights_.size(); ++i)
    if (sizes[i] > 0 && weights_[i] > 0.0) return false;
  return true;
}

int list_selector::first_non_empty(std::size_t start,
                                   const std::vector<std::uint64_t>& sizes) const {
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    std::size_t i = (start + k) % sizes.size();
    if (sizes[i] > 0) return static_cast<int>(i);
  }
  return none;
}

// Smooth weighted round-robin (as in nginx): over any run of W picks, list i gets its
// weight's share within one unit, interleaved rather than in bursts.
int list_selector::pick_ratio(const std::vector<std::uint64_t>& sizes) {
  double total = 0.0;
  int best = none;
  for (std::size_t i = 0; i < weights_.size(); ++i) {
    if (weights_[i] <= 0.0 || (work_conserving_ && sizes[i] == 0)) continue;
    current_[i] += weights_[i];
    total += weights_[i];
    if (best == none || current_[i] > current_[static_cast<std::size_t>(best)])
      best = static_cast<int>(i);
  }
  if (best == none) return none;
  current_[static_cast<std::size_t>(best)] -= total;
  return sizes[static_cast<std::size_t>(best)] > 0 ? best : none;
}

int list_selector::pick_start(const std::vector<std::uint64_t>& sizes, sim::rng& r) const {
  const double u = r.uniform01();
  std::size_t start = 0;
  while (start + 1 < start_cumulative_.size() && u >= start_cumulative_[start]) ++start;
  return first_non_empty(start, sizes);
}

int list_selector::pick(const std::vector<std::uint64_t>& sizes, sim::rng& r) {
  return selection_policy_of(kind_).pick(*this, pick_context{sizes, r});
}

}  // namespace waitroom::models
