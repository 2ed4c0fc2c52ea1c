// Lottery (the Redis ZSet VIP article layer 3, see docs/references.md): no positions; each release
// draws a waiting user, a class with probability weight x size (x its users' waits with
// wait_scale_s), then a member. The draw itself is the queues' (models/queues): lottery sets.
#include "models/release/selection.hpp"
#include "models/spec/scenario.hpp"
#include "sim/time.hpp"

namespace waitroom::models {

namespace {
// "class_weights": {"vip": 5, "normal": 1}: every class, each > 0.
void read(const object_reader& r, const selection_read_context& c, selection_spec& sel) {
  std::vector<std::string> names;
  for (const auto& uc : c.classes) names.push_back(uc.name);
  auto cw = *r.object("class_weights", names, true);
  for (const auto& uc : c.classes)
    sel.class_weights.push_back(cw.number(uc.name, std::nullopt, {0.0, 1e12, true}));
  sel.wait_scale_s = r.number("wait_scale_s", 0.0, {0.0, sim::max_input_seconds});
}

void write(const selection_spec& sel, const std::vector<std::string>& class_names, json& sj) {
  sj["class_weights"] = json::object();
  for (std::size_t c = 0; c < class_names.size(); ++c)
    sj["class_weights"][class_names[c]] = sel.class_weights[c];
  sj["wait_scale_s"] = sel.wait_scale_s;
}
}  // namespace

const selection_policy& lottery_policy() {
  static const selection_policy p{
      .kind = selection_kind::lottery,
      .name = "lottery",
      .doc = "draw waiting users at random, weighted by class (the Redis ZSet VIP article layer 3)",
      .keys = {"class_weights", "wait_scale_s"},
      .read = read,
      .write = write,
      .pick = [](list_selector& s, const pick_context& c) { return s.first_non_empty(0, c.sizes); },
  };
  return p;
}

}  // namespace waitroom::models
