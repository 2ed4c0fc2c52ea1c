#include "check_report.hpp"

#include <cmath>

#include "reports/report.hpp"

namespace waitroom::reports {

using nlohmann::json;

json sla_outcome_json(const models::scenario& s, const models::sla_outcome& o) {
  const auto& t = o.target;
  json j{{"class", t.user_class < 0 ? std::string("all")
                                    : s.classes[static_cast<std::size_t>(t.user_class)].name},
         {"metric", models::to_string(t.metric)}};
  if (t.max) j["max"] = *t.max;
  if (t.min) j["min"] = *t.min;
  // A metric the runs could not measure is NaN: null in JSON, and never a pass.
  j["estimate"] = o.estimate.mean;
  j["ci"] = {o.estimate.lo(), o.estimate.hi()};
  j["pass"] = o.pass;
  // Whether users still waiting at the end (or missing data) decided it: see docs/cli.md.
  j["verdict"] = models::to_string(o.verdict);
  j["reason"] = o.reason.empty() ? json(nullptr) : json(o.reason);
  j["censored_users"] = o.censored;
  j["released_users"] = o.released;
  j["censored_ci"] = {o.bounds.first,
                      std::isinf(o.bounds.second) ? json(nullptr) : json(o.bounds.second)};
  return j;
}

json check_json(
    const std::vector<std::pair<const models::scenario*, std::vector<models::sla_outcome>>>& runs,
    std::string_view tool_version) {
  json j{{"kind", "check"},
         {"schema_version", result_schema_version},
         {"tool", {{"name", "waitroom"}, {"version", tool_version}}},
         {"scenarios", json::array()}};
  bool all = true;
  for (const auto& [s, outcomes] : runs) {
    json sj{{"name", s->name},
            {"seed", s->seed},
            {"replications", s->sla->replications},
            {"confidence", s->sla->confidence},
            {"targets", json::array()}};
    bool pass = true;
    for (const auto& o : outcomes) {
      sj["targets"].push_back(sla_outcome_json(*s, o));
      pass = pass && o.pass;
    }
    sj["pass"] = pass;
    sj["scenario"] = models::to_json(*s);
    all = all && pass;
    j["scenarios"].push_back(std::move(sj));
  }
  j["pass"] = all;
  return j;
}

}  // namespace waitroom::reports
