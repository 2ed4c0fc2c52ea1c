#pragma once
// Helpers shared by the tests: build a scenario from inline JSON, through the real loader.
#include <string>

#include "models/scenario/scenario.hpp"

namespace waitroom::testing_support {

inline models::scenario scenario_from(const std::string& json_text,
                                      const std::string& base_dir = WAITROOM_SOURCE_DIR) {
  return models::parse_scenario(models::parse_json_text(json_text, "test.json"), "test.json",
                                base_dir);
}

inline std::string source_path(const std::string& rel) {
  return std::string(WAITROOM_SOURCE_DIR) + "/" + rel;
}

}  // namespace waitroom::testing_support
