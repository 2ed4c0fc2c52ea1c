// `waitroom import cloudflare ROOM.json`: a Cloudflare waiting room object (the API's JSON)
// as a scenario in active_users mode. Every field is checked against the type and range the
// API documents (docs/products.md lists them), then either mapped or named on stderr as
// having no equivalent. Errors name the input file and the JSON pointer of the field at
// fault. The result is checked by the scenario loader before it is written.
#include "import_command.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "command_line.hpp"
#include "commands.hpp"
#include "models/json/json_text.hpp"
#include "models/scenario/scenario.hpp"
#include "output_file.hpp"
#include "sim/input_error.hpp"
#include "sim/text_file.hpp"

namespace po = boost::program_options;
using nlohmann::json;

namespace waitroom::cli {

std::string import_usage() {
  return R"(usage: waitroom import cloudflare ROOM.json --arrivals ARRIVALS.json [--event EVENT.json]
                       [--out SCENARIO.json]

Turns a Cloudflare waiting room object (the JSON of the API's GET
/zones/{zone}/waiting_rooms/{id}, with or without its {"result": ...} envelope) into a
scenario in active_users mode (docs/products.md). The room says nothing of the traffic:
ARRIVALS.json is the scenario's "arrivals" object (see docs/scenarios.md). An event object
(GET .../events/{id}) adds its prequeue, start and shuffle and overrides the room's settings.
Every field is checked against the type and range Cloudflare's API documents; fields without
an equivalent are named on stderr; the scenario is checked before it is written.

options:
  --arrivals FILE  the arrivals object (required)
  --event FILE     a waiting room event object
  --out FILE       where to write the scenario (default: stdout)
  --help           this text
)";
}

namespace {

// An input file as JSON; `what` names the kind of file in errors ("an event file").
json read_input(const std::string& path, const std::string& what) {
  return models::parse_json_strict(sim::read_text_file(path, what), path);
}

}  // namespace

int import_command(const std::vector<std::string>& args) {
  po::options_description opts;
  opts.add_options()("input", po::value<std::vector<std::string>>())(
      "arrivals", po::value<std::string>())("event", po::value<std::string>())(
      "out", po::value<std::string>())("help", po::bool_switch());
  const po::variables_map vm = parse_command_line(args, opts, "input", "waitroom import");
  if (vm["help"].as<bool>()) {
    fmt::print("{}", import_usage());
    return exit_ok;
  }
  const auto input =
      vm.count("input") ? vm["input"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (input.size() != 2 || input[0] != "cloudflare")
    throw sim::input_error("waitroom import", "cloudflare ROOM.json",
                           input.empty() ? "nothing" : fmt::format("{}", fmt::join(input, " ")));
  if (!vm.count("arrivals"))
    throw sim::input_error("waitroom import --arrivals",
                           "an arrivals file (a waiting room object holds no traffic)", "none");
  const std::string room_file = input[1];
  const std::string arrivals_file = vm["arrivals"].as<std::string>();
  if (vm.count("out"))  // before reading: an output onto an input would lose it
    refuse_same_file({{"--out", vm["out"].as<std::string>()}},
                     {{"the room file", room_file},
                      {"the arrivals file", arrivals_file},
                      {"the event file", vm.count("event") ? vm["event"].as<std::string>() : ""}});
  const json arrivals = read_input(arrivals_file, "an arrivals file");
  if (!arrivals.is_object())
    throw sim::input_error(arrivals_file, "a scenario's arrivals object", arrivals.type_name());
  std::optional<json> event;
  std::string event_file;
  if (vm.count("event")) {
    event_file = vm["event"].as<std::string>();
    event = read_input(event_file, "a Cloudflare event file");
  }
  std::vector<std::string> notes;
  const json scenario = cloudflare_scenario(read_input(room_file, "a Cloudflare waiting room file"),
                                            event, arrivals, room_file, event_file, notes);
  // The loader checks the result (ranges, the arrivals object) before anything is written.
  // The room's fields are checked above, so what it finds is in the arrivals: its message
  // names that file (the output file does not exist yet).
  const std::string label = room_file + " (imported)";
  try {
    models::parse_scenario(scenario, label, ".");
  } catch (const sim::input_error& e) {
    const std::string in_arrivals = label + ": /arrivals";
    if (e.where().rfind(in_arrivals, 0) != 0) throw;
    const std::string rest = e.where().substr(in_arrivals.size());
    const std::string where = arrivals_file + (rest.empty() ? "" : ": " + rest);
    const std::string head = e.where() + ": expected " + e.expected() + ", found " + e.found();
    std::string hint = std::string(e.what()).substr(std::min(head.size(), std::strlen(e.what())));
    if (hint.size() >= 3) hint = hint.substr(2, hint.size() - 3);  // " (hint)"
    throw sim::input_error(where, e.expected(), e.found(), hint);
  }
  for (const auto& n : notes) fmt::print(stderr, "waitroom import: {}\n", n);
  const std::string text = scenario.dump(2) + "\n";
  if (!vm.count("out")) {
    fmt::print("{}", text);
    return exit_ok;
  }
  const std::string out = vm["out"].as<std::string>();
  if (!write_atomically(out, text)) {
    fmt::print(stderr, "waitroom: {}: could not write the scenario\n", out);
    return exit_output;
  }
  fmt::print(stderr, "waitroom: wrote {}\n", out);
  return exit_ok;
}

}  // namespace waitroom::cli
