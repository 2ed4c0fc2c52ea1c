// A Cloudflare waiting room (and optionally one of its events) as a scenario in active_users
// mode: every field checked (cloudflare_fields.cpp), then mapped or named in the notes as
// having no equivalent.
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "cloudflare_input.hpp"
#include "import_command.hpp"
#include "sim/input_error.hpp"
#include "sim/time.hpp"

namespace waitroom::cli {

using nlohmann::json;

namespace {

using cloudflare::instant;
using cloudflare::source;

// A room setting as the simulation sees it: the event's override, else the room's value.
struct setting {
  const json* value = nullptr;
  const source* from = nullptr;
  explicit operator bool() const { return value != nullptr; }
  std::string at(const std::string& key) const { return from->at(key); }
};

setting effective(const source& room, const source* event, const std::string& key) {
  if (event && event->obj.contains(key) && !event->obj[key].is_null())
    return {&event->obj[key], event};
  if (room.obj.contains(key)) return {&room.obj[key], &room};
  return {};
}

std::optional<instant> event_time(const source& ev, const std::string& key, bool required) {
  if (!ev.obj.contains(key) || ev.obj[key].is_null()) {
    if (required)
      ev.fail(key, std::string(cloudflare::time_expected) + " (Cloudflare requires it)", "none");
    return std::nullopt;
  }
  // Checked already.
  return std::get<instant>(cloudflare::parse_time(ev.obj[key].get<std::string>()));
}

// Every field of the room and the event against the API's documented types and ranges.
void check_inputs(const source& room, const source* ev, std::vector<std::string>& notes) {
  static const std::set<std::string> room_mapped{"name",
                                                 "total_active_users",
                                                 "new_users_per_minute",
                                                 "session_duration",
                                                 "disable_session_renewal",
                                                 "queueing_method",
                                                 "enabled_origin_commands",
                                                 "queue_all",
                                                 "suspended",
                                                 "next_event_prequeue_start_time",
                                                 "next_event_start_time"};
  static const std::set<std::string> event_mapped{"name",
                                                  "event_start_time",
                                                  "event_end_time",
                                                  "prequeue_start_time",
                                                  "shuffle_at_event_start",
                                                  "suspended",
                                                  "total_active_users",
                                                  "new_users_per_minute",
                                                  "session_duration",
                                                  "disable_session_renewal",
                                                  "queueing_method"};
  cloudflare::check_fields(room, false, room_mapped, notes);
  if (ev) cloudflare::check_fields(*ev, true, event_mapped, notes);

  // An event overrides both limits or neither (Cloudflare refuses one alone).
  if (ev) {
    const auto given = [&](const char* k) { return ev->obj.contains(k) && !ev->obj[k].is_null(); };
    if (given("total_active_users") != given("new_users_per_minute")) {
      const char* missing =
          given("total_active_users") ? "new_users_per_minute" : "total_active_users";
      ev->fail(missing,
               "a value when the event sets the other limit (Cloudflare sets both or neither)",
               "none");
    }
  }
}

// The origin's revoke command, queue_all and suspended: what the scenario does instead.
void origin_notes(const source& room, const setting& total, std::int64_t total_v,
                  std::int64_t per_minute_v, json& release, std::vector<std::string>& notes) {
  if (room.obj.contains("enabled_origin_commands") &&
      !room.obj["enabled_origin_commands"].empty()) {  // checked: only "revoke" is allowed
    release["revoke_on_exit"] = true;
    notes.push_back(
        room.at("enabled_origin_commands") +
        " revoke: modelled as the origin revoking the session on the visit's last request "
        "(revoke_on_exit)");
    // The import leaves /release/visit at its default, one request: each session is revoked
    // at admission, so no session is ever counted against the cap.
    notes.push_back(fmt::format(
        "{}: with revoke and the scenario's default visit of one request, each session is "
        "revoked as it is admitted, so total_active_users ({}) binds nothing: only "
        "new_users_per_minute ({}) limits admissions. Set /release/visit (requests, think_s) "
        "to model visits of several requests",
        total.at("total_active_users"), total_v, per_minute_v));
  }
  if (room.obj.contains("queue_all") && room.obj["queue_all"].get<bool>())
    notes.push_back(room.at("queue_all") +
                    ": true is a switch an operator turns off; the scenario has it off. Set "
                    "/release/queue_all_until_s to the time it is turned off");
  if (room.obj.contains("suspended") && room.obj["suspended"].get<bool>())
    notes.push_back(room.at("suspended") +
                    ": true (the room lets everyone through): simulated as enabled");
}

// The release section: active_users with the room's (or the event's) limits and sessions.
json room_release(const source& room, const source* ev, std::vector<std::string>& notes) {
  const auto required = [&](const std::string& key) {
    const setting s = effective(room, ev, key);
    if (!s)
      room.fail(key,
                fmt::format("an integer from {} to {} (Cloudflare requires it)",
                            cloudflare::users_min, cloudflare::users_max),
                "none");
    return s;
  };
  const setting total = required("total_active_users");
  const setting per_minute = required("new_users_per_minute");
  const auto total_v = total.value->get<std::int64_t>();
  const auto per_minute_v = per_minute.value->get<std::int64_t>();
  if (per_minute_v > total_v)
    throw sim::input_error(per_minute.at("new_users_per_minute"),
                           fmt::format("at most total_active_users ({}, {}) (Cloudflare's rule)",
                                       total_v, total.at("total_active_users")),
                           fmt::format("{}", per_minute_v));
  json release{{"mode", "active_users"},
               {"total_active_users", total_v},
               {"new_users_per_minute", per_minute_v}};
  if (const setting s = effective(room, ev, "session_duration"))
    release["session_duration_min"] = static_cast<double>(s.value->get<std::int64_t>());
  else
    notes.push_back(fmt::format("{}: absent, Cloudflare's default of {} minutes used",
                                room.at("session_duration"), cloudflare::session_default));
  if (const setting s = effective(room, ev, "disable_session_renewal"))
    release["disable_session_renewal"] = s.value->get<bool>();
  if (const setting s = effective(room, ev, "queueing_method"))
    release["queueing_method"] = s.value->get<std::string>();
  origin_notes(room, total, total_v, per_minute_v, release, notes);
  return release;
}

// The event's times as the release's event_start_s (t = 0 is the prequeue's start, else the
// event's) and its shuffle; returns the event's start.
instant add_event(const source& ev, json& release, std::vector<std::string>& notes) {
  const instant start = *event_time(ev, "event_start_time", true);
  const instant end = *event_time(ev, "event_end_time", true);
  const std::optional<instant> prequeue = event_time(ev, "prequeue_start_time", false);
  if (cloudflare::seconds_between(start, end) < cloudflare::event_min_length_s)
    ev.fail("event_end_time", "at least one minute after event_start_time (Cloudflare's rule)",
            fmt::format("{} s after it", cloudflare::seconds_between(start, end)));
  if (prequeue && cloudflare::seconds_between(*prequeue, start) < cloudflare::prequeue_min_lead_s)
    ev.fail("prequeue_start_time",
            "at least five minutes before event_start_time (Cloudflare's rule)",
            fmt::format("{} s before it", cloudflare::seconds_between(*prequeue, start)));
  const instant t0 = prequeue ? *prequeue : start;
  const double start_s = cloudflare::seconds_between(t0, start);
  const double end_s = cloudflare::seconds_between(t0, end);
  if (start_s > sim::max_input_seconds)
    ev.fail("prequeue_start_time",
            fmt::format("at most {} s before event_start_time (the simulation's clock)",
                        sim::max_input_seconds),
            fmt::format("{} s", start_s));
  release["event_start_s"] = start_s;
  const bool shuffle =
      ev.obj.contains("shuffle_at_event_start") && ev.obj["shuffle_at_event_start"].get<bool>();
  if (shuffle && !prequeue)
    ev.fail("shuffle_at_event_start",
            "false without a prequeue_start_time (Cloudflare shuffles the prequeue)", "true");
  if (ev.obj.contains("shuffle_at_event_start")) release["shuffle_at_event_start"] = shuffle;
  if (ev.obj.contains("suspended") && ev.obj["suspended"].get<bool>())
    notes.push_back(ev.at("suspended") +
                    ": true: Cloudflare would ignore the event; imported as if it were active");
  notes.push_back(fmt::format(
      "event: t = 0 is the {}; the event starts at {} s; its end ({} s) is not modelled: set "
      "/run/horizon_s to stop there",
      prequeue ? "prequeue's start" : "event's start", start_s, end_s));
  return start;
}

// The room's next event is read-only metadata; its settings are in the event object.
void next_event_notes(const source& room, const source* ev,
                      const std::optional<instant>& event_start, const std::string& event_file,
                      std::vector<std::string>& notes) {
  for (const char* key : {"next_event_prequeue_start_time", "next_event_start_time"}) {
    if (!room.obj.contains(key) || room.obj[key].is_null()) continue;
    const instant next =
        std::get<instant>(cloudflare::parse_time(room.obj[key].get<std::string>()));
    const bool is_start = std::string_view(key) == "next_event_start_time";
    if (!ev)
      notes.push_back(room.at(key) + " " + room.obj[key].dump(-1, ' ', true) +
                      ": the room has an event coming; it is not imported (ignored): pass its "
                      "object with --event");
    else if (is_start && event_start && cloudflare::seconds_between(*event_start, next) != 0.0)
      notes.push_back(room.at(key) + " " + room.obj[key].dump(-1, ' ', true) +
                      ": not the start of the event given with --event (" + event_file +
                      "); the --event file's is imported");
    else if (is_start)
      notes.push_back(room.at(key) + ": the event given with --event (imported)");
    else
      notes.push_back(room.at(key) + ": the event's prequeue_start_time is used instead");
  }
}

}  // namespace

json cloudflare_scenario(const json& room_in, const std::optional<json>& event_in,
                         const json& arrivals, const std::string& room_file,
                         const std::string& event_file, std::vector<std::string>& notes) {
  const source room = cloudflare::open(room_in, room_file, "waiting room", notes);
  std::optional<source> event;
  if (event_in) event = cloudflare::open(*event_in, event_file, "waiting room event", notes);
  const source* ev = event ? &*event : nullptr;
  check_inputs(room, ev, notes);
  json release = room_release(room, ev, notes);
  std::optional<instant> event_start;
  if (ev) event_start = add_event(*ev, release, notes);
  next_event_notes(room, ev, event_start, event_file, notes);

  std::string name = "cloudflare-room";
  if (room.obj.contains("name"))
    name = room.obj["name"].get<std::string>();
  else
    notes.push_back(room_file + ": no /name: the scenario is named " + name);
  std::string from = "imported from the Cloudflare waiting room " + room_file;
  if (ev)
    from += " and event " + event_file +
            (ev->obj.contains("name") ? " (" + ev->obj["name"].get<std::string>() + ")" : "");
  json scenario{{"name", name},
                {"description", from + " by waitroom import (docs/products.md)"},
                {"classes", json::array({json{{"name", "all"}}})},
                {"arrivals", arrivals},
                // FIFO by the cookie's minute of entry; Cloudflare has no classes or offsets.
                {"queue", {{"policy", "fifo"}, {"time_unit", "min"}}},
                {"release", release}};
  return scenario;
}

}  // namespace waitroom::cli
