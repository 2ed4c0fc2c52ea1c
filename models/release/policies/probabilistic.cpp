// Probabilistic list choice (the request-priority article, see docs/references.md): the scan for a
// non-empty list starts at list i with probability p_i, e.g. 90% high first, 10% medium first.
#include "models/release/selection.hpp"

namespace waitroom::models {

const selection_policy& probabilistic_policy() {
  static const selection_policy p{
      .kind = selection_kind::probabilistic,
      .name = "probabilistic",
      .doc = "start the scan at list i with probability p_i (the request-priority article)",
      .keys = {"start_probabilities"},
      .redis_choose = "probabilistic",
      .read =
          [](const object_reader& r, const selection_read_context& c, selection_spec& sel) {
            sel.start_probabilities =
                read_per_list(r, "start_probabilities", c.lists.size(), "list", true);
          },
      .write = [](const selection_spec& sel, const std::vector<std::string>&,
                  json& sj) { sj["start_probabilities"] = sel.start_probabilities; },
      .pick = [](list_selector& s, const pick_context& c) { return s.pick_start(c.sizes, c.rng); },
  };
  return p;
}

}  // namespace waitroom::models
