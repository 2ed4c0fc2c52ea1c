#pragma once
// `waitroom import cloudflare ROOM.json`: a commercial waiting room's configuration as a
// scenario (docs/products.md).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace waitroom::cli {

std::string import_usage();
int import_command(const std::vector<std::string>& args);
// The scenario for a Cloudflare waiting room object (and optionally one of its events), with
// `arrivals` as its arrivals object; what has no equivalent is added to `notes`.
nlohmann::json cloudflare_scenario(const nlohmann::json& room,
                                   const std::optional<nlohmann::json>& event,
                                   const nlohmann::json& arrivals, const std::string& room_file,
                                   const std::string& event_file, std::vector<std::string>& notes);

}  // namespace waitroom::cli
