// /sla: the confidence, replications and targets a verdict is given on.
#include "models/scenario/sections.hpp"

#include <algorithm>

namespace waitroom::models::section {

// "sla": {"confidence": 0.95, "replications": 10, "targets": [{"class": "vip",
// "metric": "mean_wait_s", "max": 20}, ...]}
std::optional<sla_spec> read_sla(const object_reader& top, const std::vector<user_class>& classes,
                                 bool polling, bool backend) {
  auto r = top.object("sla", {"confidence", "replications", "targets"}, false);
  if (!r) return std::nullopt;
  sla_spec spec;
  spec.confidence = r->number("confidence", 0.95, {0.5, 0.9999});
  spec.replications = static_cast<std::uint32_t>(r->integer("replications", 10, 2, 100000));
  const json& ts = r->array("targets", 1);
  std::vector<std::string> class_options{"all"};
  for (const auto& c : classes) class_options.push_back(c.name);
  for (std::size_t i = 0; i < ts.size(); ++i) {
    object_reader t(ts[i], top.file(), r->pointer("targets") + "/" + std::to_string(i),
                    {"class", "metric", "max", "min"});
    sla_target target;
    std::string cls = t.choice("class", "all", class_options);
    for (std::size_t c = 0; c < classes.size(); ++c)
      if (classes[c].name == cls) target.user_class = static_cast<std::int32_t>(c);
    std::string metric = t.choice("metric", std::nullopt, sla_metric_names());
    const auto& names = sla_metric_names();
    target.metric =
        static_cast<sla_metric>(std::find(names.begin(), names.end(), metric) - names.begin());
    if (needs_polling(target.metric) && !polling)
      t.fail("metric", "a metric the scenario can measure ('" + metric + "' needs a polling block)",
             metric);
    if (needs_backend(target.metric) && !backend)
      t.fail("metric", "a metric the scenario can measure ('" + metric + "' needs a backend block)",
             metric);
    // A share (of users, of requests) lies in [0, 1]: a limit of 5 would hold always.
    const double top_limit = is_share(target.metric) ? 1.0 : 1e15;
    if (t.has("max")) target.max = t.number("max", std::nullopt, {0.0, top_limit});
    if (t.has("min")) target.min = t.number("min", std::nullopt, {0.0, top_limit});
    if (!target.max && !target.min) t.fail("max", "a 'max' or a 'min' limit", "neither");
    spec.targets.push_back(target);
  }
  return spec;
}

}  // namespace waitroom::models::section
