#pragma once
// `check`'s verdict, shared by `check` and `merge` of its shards.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/scenario/scenario.hpp"
#include "models/sla/sla.hpp"
#include "options.hpp"

namespace waitroom::cli {

// check's verdict from each scenario's metric tables (one per replication): the tables, the
// final line and the exit code; the same code for `check` and for `merge` of its shards.
// redis (check --redis): added to the JSON as "redis" and to the table before the verdict.
int check_output(const common_args& a, const std::vector<models::scenario>& scenarios,
                 const std::vector<std::vector<models::metric_table>>& tables,
                 const nlohmann::json& redis = nullptr, const std::string& redis_text = {});

}  // namespace waitroom::cli
