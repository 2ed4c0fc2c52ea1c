// The scheduler of per-SKU queues (the flash-sale article, see docs/references.md): the list with
// the largest age_weight x its head's wait + length_weight x its length; ties to the earlier list.
#include "models/release/selection.hpp"

namespace waitroom::models {

namespace {
int pick(list_selector&, const pick_context& c) {
  const auto& spec = *c.spec;
  int best = list_selector::none;
  double best_value = -1.0;
  for (std::uint32_t l = 0; l < c.sizes.size(); ++l) {
    if (c.sizes[l] == 0) continue;
    const double waited =
        static_cast<double>(c.now_ns - c.people->entry_ns(c.lists->head(l))) * 1e-9;
    const double value =
        spec.age_weight * waited + spec.length_weight * static_cast<double>(c.sizes[l]);
    if (value > best_value) {
      best_value = value;
      best = static_cast<int>(l);
    }
  }
  return best;
}
}  // namespace

const selection_policy& scheduler_policy() {
  static const selection_policy p{
      .kind = selection_kind::scheduler,
      .name = "scheduler",
      .doc = "the list with the oldest head and the most users first (the flash-sale article)",
      .keys = {"age_weight", "length_weight"},
      .read =
          [](const object_reader& r, const selection_read_context&, selection_spec& sel) {
            sel.age_weight = r.number("age_weight", 1.0, {0.0, 1e12});
            sel.length_weight = r.number("length_weight", 0.0, {0.0, 1e12});
            if (sel.age_weight <= 0 && sel.length_weight <= 0)
              r.fail("age_weight", "age_weight or length_weight above 0", "both 0");
          },
      .write =
          [](const selection_spec& sel, const std::vector<std::string>&, json& sj) {
            sj["age_weight"] = sel.age_weight;
            sj["length_weight"] = sel.length_weight;
          },
      .pick = pick,
  };
  return p;
}

}  // namespace waitroom::models
