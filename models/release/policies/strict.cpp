// Strict priority (the request-priority article, see docs/references.md): always the first
// non-empty list, like BRPOP high medium low. Lower lists starve under sustained load.
#include "models/release/selection.hpp"

namespace waitroom::models {

const selection_policy& strict_policy() {
  static const selection_policy p{
      .kind = selection_kind::strict,
      .name = "strict",
      .doc =
          "always the first non-empty list, like BRPOP high medium low (the request-priority "
          "article)",
      .keys = {},
      .in_list_order = true,
      .redis_choose = "strict",
      .read = [](const object_reader&, const selection_read_context&, selection_spec&) {},
      .write = [](const selection_spec&, const std::vector<std::string>&, json&) {},
      .pick = [](list_selector& s, const pick_context& c) { return s.first_non_empty(0, c.sizes); },
  };
  return p;
}

}  // namespace waitroom::models
