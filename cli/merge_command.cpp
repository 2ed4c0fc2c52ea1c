// `waitroom merge`: the shard files of run, check, sweep or plan --shard K/N combined into
// exactly what the unsharded command writes.
#include <functional>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "models/json/json_text.hpp"
#include "options.hpp"
#include "shard.hpp"
#include "sim/input_error.hpp"
#include "sim/text_file.hpp"

namespace waitroom::cli {

namespace {

using nlohmann::json;

// merge_command after its arguments: `read(i)` gives the i-th shard file's JSON.
int merge_shards(common_args& m, const std::function<json(std::size_t)>& read) {
  try {
    if (m.scenario_paths.empty()) throw sim::input_error("waitroom merge", "shard files", "none");
    std::vector<json> shards;
    for (std::size_t i = 0; i < m.scenario_paths.size(); ++i) {
      const std::string& path = m.scenario_paths[i];
      json j = read(i);
      check_shard_header(path, j);  // the format and command this program merges
      shards.push_back(std::move(j));
    }
    const auto& paths = m.scenario_paths;
    check_shard_set(paths, shards);   // one job's shards, each once
    adopt_sources(m, paths, shards);  // the scenarios they ran, not the files as they are now
    const std::string command = shards.front().at("command").get<std::string>();
    if (command == "run") return merge_run(m, paths, shards);
    if (command == "check") return merge_check(m, paths, shards);
    if (command == "plan") return merge_plan(m, paths, shards);
    return merge_sweep(m, paths, shards);
  } catch (const nlohmann::json::exception& e) {
    // The readers above name the file where they can; this is the last resort.
    std::string files;
    for (const auto& p : m.scenario_paths) files += (files.empty() ? "" : ", ") + p;
    fmt::print(stderr, "waitroom: merge: one of {} is damaged ({})\n", files, e.what());
    return exit_bad_input;
  }
}

}  // namespace

int merge_command(const std::vector<std::string>& args) {
  common_args m = parse_args("merge", args, command_kind::merge);
  return merge_shards(m, [&](std::size_t i) {
    const std::string& path = m.scenario_paths[i];
    return models::parse_json_strict(sim::read_text_file(path, "a shard file"), path);
  });
}

int merge_texts(const std::vector<std::string>& args, const std::vector<std::string>& texts) {
  common_args m = parse_args("merge", args, command_kind::merge);
  if (texts.size() != m.scenario_paths.size())
    throw std::logic_error("merge_texts: one text per shard file named");
  return merge_shards(
      m, [&](std::size_t i) { return models::parse_json_text(texts[i], m.scenario_paths[i]); });
}

}  // namespace waitroom::cli
