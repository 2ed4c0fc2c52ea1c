// `waitroom import cloudflare ROOM.json`: a Cloudflare waiting room object (the API's JSON)
// as a scenario in active_users mode. Every field is either mapped (docs/products.md has the
// semantics and sources) or named on stderr as having no equivalent. The result is checked by
// the scenario loader before it is written.
#include "import_command.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "cli_support.hpp"
#include "commands.hpp"
#include "models/scenario/scenario.hpp"
#include "sim/input_error.hpp"

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
Fields without an equivalent are named on stderr; the scenario is checked before it is
written.

options:
  --arrivals FILE  the arrivals object (required)
  --event FILE     a waiting room event object
  --out FILE       where to write the scenario (default: stdout)
  --help           this text
)";
}

namespace {

// A field of the room: the object's value, else the event's override, or nothing.
const json* field(const json& room, const json* event, const std::string& key) {
  if (event && event->contains(key) && !(*event)[key].is_null()) return &(*event)[key];
  if (room.contains(key) && !room[key].is_null()) return &room[key];
  return nullptr;
}

json unwrap(json j, const std::string& file, const std::string& what) {
  if (j.is_object() && j.contains("result") && j["result"].is_object()) j = j["result"];
  if (!j.is_object())
    throw sim::input_error(file, "a Cloudflare " + what + " object", j.type_name());
  return j;
}

// Seconds since the epoch of an ISO 8601 UTC time as the API writes it
// ("2021-09-28T15:30:00.000Z"); nullopt when it is not one.
std::optional<double> iso_seconds(const std::string& t) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0;
  double s = 0;
  if (std::sscanf(t.c_str(), "%d-%d-%dT%d:%d:%lf", &y, &mo, &d, &h, &mi, &s) != 6)
    return std::nullopt;
  // Days from civil (H. Hinnant's algorithm): exact for the proleptic Gregorian calendar.
  y -= mo <= 2 ? 1 : 0;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const double days = static_cast<double>(era) * 146097.0 + doe - 719468.0;
  return days * 86400.0 + h * 3600.0 + mi * 60.0 + s;
}

double event_time(const json& event, const std::string& key, const std::string& file) {
  const json* v = event.contains(key) ? &event[key] : nullptr;
  std::optional<double> t;
  if (v && v->is_string()) t = iso_seconds(v->get<std::string>());
  if (!t)
    throw sim::input_error(file + ": /" + key, "an ISO 8601 time such as 2021-09-28T15:30:00Z",
                           v ? v->dump() : "none");
  return *t;
}

}  // namespace

json cloudflare_scenario(const json& room_in, const std::optional<json>& event_in,
                         const json& arrivals, const std::string& room_file,
                         const std::string& event_file, std::vector<std::string>& notes) {
  const json room = unwrap(room_in, room_file, "waiting room");
  std::optional<json> event;
  if (event_in) event = unwrap(*event_in, event_file, "waiting room event");
  const json* ev = event ? &*event : nullptr;

  auto require_int = [&](const std::string& key) {
    const json* v = field(room, ev, key);
    if (!v || !v->is_number_integer() || v->get<std::int64_t>() < 1)
      throw sim::input_error(room_file + ": /" + key, "a positive integer (Cloudflare requires it)",
                             v ? v->dump() : "none");
    return v->get<std::int64_t>();
  };
  json release{{"mode", "active_users"},
               {"total_active_users", require_int("total_active_users")},
               {"new_users_per_minute", require_int("new_users_per_minute")}};
  if (const json* v = field(room, ev, "session_duration"); v && v->is_number())
    release["session_duration_min"] = v->get<double>();
  else
    notes.push_back("session_duration: absent, Cloudflare's default of 5 minutes used");
  if (const json* v = field(room, ev, "disable_session_renewal"); v && v->is_boolean())
    release["disable_session_renewal"] = v->get<bool>();
  if (const json* v = field(room, ev, "queueing_method"); v && v->is_string())
    release["queueing_method"] = v->get<std::string>();
  if (const json* v = field(room, nullptr, "enabled_origin_commands"); v && v->is_array()) {
    const bool revoke = std::find(v->begin(), v->end(), json("revoke")) != v->end();
    if (revoke) {
      release["revoke_on_exit"] = true;
      notes.push_back(
          "enabled_origin_commands revoke: modelled as the origin revoking the session on the "
          "visit's last request (revoke_on_exit)");
    }
  }
  if (const json* v = field(room, nullptr, "queue_all"); v && v->is_boolean() && v->get<bool>())
    notes.push_back(
        "queue_all: true is a switch an operator turns off; the scenario has it off. Set "
        "/release/queue_all_until_s to the time it is turned off");
  if (const json* v = field(room, ev, "suspended"); v && v->is_boolean() && v->get<bool>())
    notes.push_back("suspended: true (the room lets everyone through): simulated as enabled");
  if (event) {
    const double prequeue =
        ev->contains("prequeue_start_time") && (*ev)["prequeue_start_time"].is_string()
            ? event_time(*ev, "prequeue_start_time", event_file)
            : event_time(*ev, "event_start_time", event_file);
    const double start = event_time(*ev, "event_start_time", event_file);
    const double end = event_time(*ev, "event_end_time", event_file);
    if (start < prequeue || end <= start)
      throw sim::input_error(event_file + ": /event_start_time",
                             "prequeue_start_time <= event_start_time < event_end_time",
                             fmt::format("{} s after the prequeue, ending {} s after it",
                                         start - prequeue, end - prequeue));
    release["event_start_s"] = start - prequeue;
    if (const json* v = field(*ev, nullptr, "shuffle_at_event_start"); v && v->is_boolean())
      release["shuffle_at_event_start"] = v->get<bool>() && start > prequeue;
    notes.push_back(fmt::format(
        "event: t = 0 is the prequeue's start; the event starts at {} s; its end ({} s) is not "
        "modelled: set /run/horizon_s to stop there",
        start - prequeue, end - prequeue));
  }
  // What a waiting room object holds that the simulation has no use for.
  static const std::set<std::string> mapped{"total_active_users",
                                            "new_users_per_minute",
                                            "session_duration",
                                            "disable_session_renewal",
                                            "queueing_method",
                                            "enabled_origin_commands",
                                            "queue_all",
                                            "suspended",
                                            "name"};
  static const std::set<std::string> meta{"id", "created_on", "modified_on", "zone_id"};
  for (const auto& [key, value] : room.items())
    if (!mapped.count(key) && !meta.count(key) && !value.is_null())
      notes.push_back(key + ": no equivalent (ignored)");
  if (ev)
    for (const auto& [key, value] : ev->items())  // null: inherited from the room
      if (!mapped.count(key) && !meta.count(key) && !value.is_null() &&
          key != "prequeue_start_time" && key != "event_start_time" && key != "event_end_time" &&
          key != "shuffle_at_event_start")
        notes.push_back("event " + key + ": no equivalent (ignored)");
  std::string name = "cloudflare-room";
  if (const json* v = field(room, nullptr, "name"); v && v->is_string())
    name = v->get<std::string>();
  json scenario{{"name", name},
                {"description", "imported from the Cloudflare waiting room " + room_file +
                                    (event ? " and event " + event_file : "") +
                                    " by waitroom import (docs/products.md)"},
                {"classes", json::array({json{{"name", "all"}}})},
                {"arrivals", arrivals},
                // FIFO by the cookie's minute of entry; Cloudflare has no classes or offsets.
                {"queue", {{"policy", "fifo"}, {"time_unit", "min"}}},
                {"release", release}};
  return scenario;
}

int import_command(const std::vector<std::string>& args) {
  po::options_description opts;
  opts.add_options()("input", po::value<std::vector<std::string>>())(
      "arrivals", po::value<std::string>())("event", po::value<std::string>())(
      "out", po::value<std::string>())("help", po::bool_switch());
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw sim::input_error("waitroom import", "valid arguments (see waitroom import --help)",
                           e.what());
  }
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
  const json arrivals = models::read_json_file(arrivals_file);
  if (!arrivals.is_object())
    throw sim::input_error(arrivals_file, "a scenario's arrivals object", arrivals.type_name());
  std::optional<json> event;
  std::string event_file;
  if (vm.count("event")) {
    event_file = vm["event"].as<std::string>();
    event = models::read_json_file(event_file);
  }
  std::vector<std::string> notes;
  const json scenario = cloudflare_scenario(models::read_json_file(room_file), event, arrivals,
                                            room_file, event_file, notes);
  // The loader checks the result (ranges, the arrivals object) before anything is written.
  models::parse_scenario(scenario, vm.count("out") ? vm["out"].as<std::string>() : "(import)", ".");
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
