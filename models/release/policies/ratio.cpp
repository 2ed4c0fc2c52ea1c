// Ratio (the Redis ZSet VIP article layer 2, see docs/references.md): lists share each release by
// weight, e.g. 7 VIP : 3 normal, by smooth weighted round-robin; optionally work-conserving, and
// with a schedule of weight changes during the run.
#include <fmt/format.h>

#include "models/release/selection.hpp"
#include "models/spec/scenario.hpp"
#include "sim/time.hpp"

namespace waitroom::models {

namespace {
void read(const object_reader& r, const selection_read_context& c, selection_spec& sel) {
  sel.weights = read_per_list(r, "weights", c.lists.size(), "list", false);
  sel.work_conserving = r.boolean("work_conserving", true);
  if (!sel.work_conserving && !c.tick)
    r.fail("work_conserving", "true in concurrency mode (a free slot always takes a waiting user)",
           "false");
  if (!r.has("schedule")) return;
  const json& sch = r.array("schedule", 1);
  double last = 0;
  for (std::size_t i = 0; i < sch.size(); ++i) {
    object_reader e(sch[i], r.file(), r.pointer("schedule") + "/" + std::to_string(i),
                    {"at_s", "weights"});
    const double at = e.number("at_s", std::nullopt, {0.0, sim::max_input_seconds, true});
    if (at <= last && i > 0)
      e.fail("at_s", fmt::format("a time after {}", last), describe(e.raw("at_s")));
    last = at;
    sel.schedule.push_back({at, read_per_list(e, "weights", c.lists.size(), "list", false)});
  }
}

void write(const selection_spec& sel, const std::vector<std::string>&, json& sj) {
  sj["weights"] = sel.weights;
  sj["work_conserving"] = sel.work_conserving;
  if (sel.schedule.empty()) return;
  sj["schedule"] = json::array();
  for (const auto& w : sel.schedule)
    sj["schedule"].push_back({{"at_s", w.at_s}, {"weights", w.weights}});
}
}  // namespace

const selection_policy& ratio_policy() {
  static const selection_policy p{
      .kind = selection_kind::ratio,
      .name = "ratio",
      .doc =
          "lists share each release by weight, e.g. 7 VIP : 3 normal (the Redis ZSet VIP article "
          "layer 2)",
      .keys = {"weights", "work_conserving", "schedule"},
      .redis_choose = "ratio",
      .read = read,
      .write = write,
      .pick = [](list_selector& s, const pick_context& c) { return s.pick_ratio(c.sizes); },
  };
  return p;
}

}  // namespace waitroom::models
