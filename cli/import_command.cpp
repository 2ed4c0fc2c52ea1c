// `waitroom import cloudflare ROOM.json`: a Cloudflare waiting room object (the API's JSON)
// as a scenario in active_users mode. Every field is checked against the type and range the
// API documents (docs/products.md lists them), then either mapped or named on stderr as
// having no equivalent. Errors name the input file and the JSON pointer of the field at
// fault. The result is checked by the scenario loader before it is written.
#include "import_command.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "commands.hpp"
#include "models/json/json_reader.hpp"
#include "models/json/json_text.hpp"
#include "models/scenario/scenario.hpp"
#include "output_file.hpp"
#include "sim/input_error.hpp"
#include "sim/text_file.hpp"
#include "sim/time.hpp"

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

// Cloudflare's documented ranges (the API's schema; docs/products.md cites them).
constexpr std::int64_t users_min = 200;
constexpr std::int64_t users_max = 2147483647;
constexpr std::int64_t session_min = 1;
constexpr std::int64_t session_max = 30;
constexpr std::int64_t session_default = 5;
constexpr double event_min_length_s = 60.0;    // start at least one minute before the end
constexpr double prequeue_min_lead_s = 300.0;  // the prequeue at least five minutes before

// JSON as the user wrote it, short, with every non-ASCII character escaped: a value may hold
// control or bidirectional-override characters that would garble the terminal's line.
std::string shown(const json& j) {
  std::string t = j.dump(-1, ' ', true, json::error_handler_t::replace);
  if (t.size() > 60) t = t.substr(0, 57) + "...";
  switch (j.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean (" + t + ")";
    case json::value_t::string:
      return "a string (" + t + ")";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return "a number (" + t + ")";
    case json::value_t::object:
      return "an object (" + t + ")";
    case json::value_t::array:
      return "an array (" + t + ")";
    default:
      return t;
  }
}

// A key as a JSON pointer step, quoted and escaped when it is not plain ASCII.
std::string key_step(const std::string& key) {
  const bool plain = std::all_of(key.begin(), key.end(), [](char c) {
    return static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7f;
  });
  return "/" + (plain ? models::json_pointer_escape(key) : json(key).dump(-1, ' ', true));
}

// One input file's object: the room or the event, out of its API envelope if it had one.
struct source {
  json obj;
  std::string file;
  std::string prefix;  // "/result" when the file is an API response
  std::string at(const std::string& key) const { return file + ": " + prefix + key_step(key); }
  [[noreturn]] void fail(const std::string& key, const std::string& expected,
                         const std::string& found, const std::string& hint = {}) const {
    throw sim::input_error(at(key), expected, found, hint);
  }
};

std::string api_errors_text(const json* errors) {
  if (!errors || errors->empty()) return "an API error response (success false, no errors listed)";
  std::string out = "an API error response:";
  for (const auto& e : *errors) {
    if (e.is_object() && e.contains("message")) {
      out += " [";
      if (e.contains("code")) out += e["code"].dump() + " ";
      out +=
          (e["message"].is_string() ? e["message"].dump(-1, ' ', true) : shown(e["message"])) + "]";
    } else {
      out += " [" + shown(e) + "]";
    }
  }
  return out;
}

// The object a file holds. An API response ({"success", "errors", "messages", "result"}) is
// opened; an error response is reported as one, not as the fields it lacks.
source open(const json& j, const std::string& file, const std::string& what,
            std::vector<std::string>& notes) {
  if (!j.is_object())
    throw sim::input_error(file, "a Cloudflare " + what + " object (the API's JSON)", shown(j));
  static const std::set<std::string> envelope{"result", "success", "errors", "messages",
                                              "result_info"};
  const bool enveloped = std::any_of(j.items().begin(), j.items().end(),
                                     [](const auto& kv) { return envelope.count(kv.key()) > 0; });
  if (!enveloped) return {j, file, ""};
  const json* success = j.contains("success") ? &j["success"] : nullptr;
  const json* errors = j.contains("errors") ? &j["errors"] : nullptr;
  if (success && !success->is_boolean())
    throw sim::input_error(file + ": /success", "true or false (an API response's envelope)",
                           shown(*success));
  if (errors && !errors->is_array())
    throw sim::input_error(file + ": /errors", "an array (an API response's envelope)",
                           shown(*errors));
  if ((success && !success->get<bool>()) || (errors && !errors->empty()))
    throw sim::input_error(file, "a " + what + " (an API response with success true)",
                           api_errors_text(errors),
                           "the request failed: save the response of one that succeeded");
  if (!j.contains("result") || j["result"].is_null())
    throw sim::input_error(file + ": /result", "the " + what + " object",
                           j.contains("result") ? "null" : "none");
  const json& result = j["result"];
  if (result.is_array())
    throw sim::input_error(file + ": /result", "one " + what + " object",
                           fmt::format("an array of {} (a list response)", result.size()),
                           "save the response of a GET of one " + what);
  if (!result.is_object())
    throw sim::input_error(file + ": /result", "the " + what + " object", shown(result));
  if (j.contains("messages") && !j["messages"].is_array())
    throw sim::input_error(file + ": /messages", "an array (an API response's envelope)",
                           shown(j["messages"]));
  std::vector<std::string> ignored;
  for (const auto& [key, value] : j.items()) {
    if (key == "result") continue;
    if (!envelope.count(key))
      notes.push_back(file + ": " + key_step(key) +
                      ": not part of an API response's envelope (ignored)");
    else if (key == "messages" && !value.empty())
      notes.push_back(file + ": /messages: the API response's messages " + shown(value) +
                      " (ignored)");
    else
      ignored.push_back(key_step(key));
  }
  if (!ignored.empty())
    notes.push_back(fmt::format("{}: {}: the API response's envelope, no equivalent (ignored)",
                                file, fmt::join(ignored, ", ")));
  return {result, file, "/result"};
}

// An instant of an RFC 3339 time: whole seconds and the nanoseconds after them.
struct instant {
  std::chrono::sys_seconds s{};
  std::int64_t ns = 0;
};

double seconds_between(const instant& from, const instant& to) {
  return static_cast<double>((to.s - from.s).count()) + static_cast<double>(to.ns - from.ns) * 1e-9;
}

// An RFC 3339 date-time (ISO 8601's profile the API writes): 2021-09-28T15:30:00.000Z, or
// with an offset such as +01:00, which is applied. The calendar date and every time field
// are checked (2026-02-30, 24:00 and a seconds field of 60 or more are refused). Returns why
// the text is not one, for the message.
std::variant<instant, std::string> parse_time(std::string_view t) {
  std::size_t i = 0;
  auto digits = [&](std::size_t n, int& out) {
    if (i + n > t.size()) return false;
    out = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const char c = t[i + k];
      if (c < '0' || c > '9') return false;
      out = out * 10 + (c - '0');
    }
    i += n;
    return true;
  };
  auto literal = [&](char c) {
    if (i < t.size() && t[i] == c) {
      ++i;
      return true;
    }
    return false;
  };
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (!digits(4, y) || !literal('-') || !digits(2, mo) || !literal('-') || !digits(2, d))
    return std::string("not a date YYYY-MM-DD");
  if (!literal('T') && !literal('t')) return std::string("no T between the date and the time");
  if (!digits(2, h) || !literal(':') || !digits(2, mi) || !literal(':') || !digits(2, s))
    return std::string("not a time hh:mm:ss");
  std::int64_t ns = 0;
  if (literal('.')) {
    std::size_t n = 0;
    std::int64_t scale = 100000000;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, ++n) {
      ns += (t[i] - '0') * scale;  // digits past nanoseconds are dropped
      scale /= 10;
    }
    if (n == 0) return std::string("no digits after the decimal point");
  }
  int sign = 0, oh = 0, om = 0;
  if (literal('Z') || literal('z')) {
    sign = 1;
  } else if (literal('+') || literal('-')) {
    sign = t[i - 1] == '+' ? 1 : -1;
    if (!digits(2, oh) || !literal(':') || !digits(2, om))
      return std::string("an offset that is not ±hh:mm");
  } else {
    return std::string("no offset (Z or ±hh:mm) after the time");
  }
  if (i != t.size()) return std::string("text after the offset");
  using namespace std::chrono;
  const year_month_day date{year{y}, month{static_cast<unsigned>(mo)},
                            day{static_cast<unsigned>(d)}};
  if (mo < 1 || mo > 12) return fmt::format("month {} (01-12)", mo);
  if (!date.ok()) return fmt::format("{:04}-{:02} has no day {}", y, mo, d);
  if (h > 23) return fmt::format("hour {} (00-23)", h);
  if (mi > 59) return fmt::format("minute {} (00-59)", mi);
  if (s > 59) return fmt::format("second {} (00-59; a leap second is not accepted)", s);
  if (oh > 23 || om > 59) return fmt::format("offset {:02}:{:02} (up to 23:59)", oh, om);
  const auto local = sys_days{date} + hours{h} + minutes{mi} + seconds{s};
  return instant{local - sign * (hours{oh} + minutes{om}), ns};
}

const std::string time_expected =
    "an RFC 3339 time such as 2021-09-28T15:30:00.000Z or 2021-09-28T16:30:00+01:00";

// Cloudflare's names: "Only alphanumeric characters, hyphens and underscores are allowed".
// Control and bidirectional-override characters get a message of their own: they are what
// makes a name look like another on a terminal.
void check_name(const source& src, const std::string& key, const json& v) {
  if (!v.is_string()) src.fail(key, "a name (a string)", shown(v));
  const std::string n = v.get<std::string>();
  if (n.empty()) src.fail(key, "a non-empty name", "an empty string");
  std::size_t index = 0;  // code points
  for (std::size_t i = 0; i < n.size(); ++index) {
    const auto b = static_cast<unsigned char>(n[i]);
    const std::size_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    char32_t cp = len == 1 ? b : len == 2 ? b & 0x1F : len == 3 ? b & 0x0F : b & 0x07;
    for (std::size_t k = 1; k < len && i + k < n.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(n[i + k]) & 0x3F);
    i += len;
    const std::string at =
        fmt::format("U+{:04X} at character {}", static_cast<unsigned>(cp), index + 1);
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
      src.fail(key, "a name without control characters", shown(v), at);
    if ((cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069))
      src.fail(key, "a name without bidirectional-override characters", shown(v), at);
    const bool allowed = (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
                         (cp >= '0' && cp <= '9') || cp == '-' || cp == '_';
    if (!allowed)
      src.fail(key, "a name of letters, digits, hyphens and underscores (Cloudflare's rule)",
               shown(v), at);
  }
}

enum class kind {
  integer,
  boolean,
  text,
  name,
  timestamp,
  choice,
  status_code,
  origin_commands,
  routes,
  cookie_attributes
};

struct rule {
  kind type = kind::text;
  std::int64_t min = 0, max = 0;     // integer
  std::vector<std::string> options;  // choice
  bool nullable = false;             // an event's null inherits the room's value
};

rule plain(kind type, bool nullable = false) {
  rule r;
  r.type = type;
  r.nullable = nullable;
  return r;
}
rule integer(std::int64_t min, std::int64_t max, bool nullable = false) {
  rule r = plain(kind::integer, nullable);
  r.min = min;
  r.max = max;
  return r;
}
rule choice(std::vector<std::string> options, bool nullable = false) {
  rule r = plain(kind::choice, nullable);
  r.options = std::move(options);
  return r;
}

const std::vector<std::string> queueing_methods{"fifo", "random", "passthrough", "reject"};
const std::vector<std::string> template_languages{
    "en-US", "es-ES", "de-DE", "fr-FR", "it-IT", "ja-JP", "ko-KR", "pt-BR", "zh-CN",
    "zh-TW", "nl-NL", "pl-PL", "id-ID", "tr-TR", "ar-EG", "ru-RU", "fa-IR"};
const std::vector<std::string> turnstile_actions{"log", "infinite_queue"};
const std::vector<std::string> turnstile_modes{"off", "invisible", "visible_non_interactive",
                                               "visible_managed"};

// The API's waiting room object, field by field.
const std::map<std::string, rule>& room_rules() {
  static const std::map<std::string, rule> r{
      {"id", plain(kind::text)},
      {"created_on", plain(kind::timestamp)},
      {"modified_on", plain(kind::timestamp)},
      {"name", plain(kind::name)},
      {"description", plain(kind::text)},
      {"host", plain(kind::text)},
      {"path", plain(kind::text)},
      {"additional_routes", plain(kind::routes)},
      {"cookie_suffix", plain(kind::text)},
      {"cookie_attributes", plain(kind::cookie_attributes)},
      {"custom_page_html", plain(kind::text)},
      {"default_template_language", choice(template_languages)},
      {"json_response_enabled", plain(kind::boolean)},
      {"queueing_status_code", plain(kind::status_code)},
      {"queue_all", plain(kind::boolean)},
      {"queueing_method", choice(queueing_methods)},
      {"session_duration", integer(session_min, session_max)},
      {"disable_session_renewal", plain(kind::boolean)},
      {"enabled_origin_commands", plain(kind::origin_commands)},
      {"suspended", plain(kind::boolean)},
      {"total_active_users", integer(users_min, users_max)},
      {"new_users_per_minute", integer(users_min, users_max)},
      {"turnstile_action", choice(turnstile_actions)},
      {"turnstile_mode", choice(turnstile_modes)},
      {"next_event_prequeue_start_time", plain(kind::timestamp, true)},
      {"next_event_start_time", plain(kind::timestamp, true)},
      {"zone_id", plain(kind::text)}};
  return r;
}

// The API's waiting room event object: null overrides inherit the room's value.
const std::map<std::string, rule>& event_rules() {
  static const std::map<std::string, rule> r{
      {"id", plain(kind::text)},
      {"created_on", plain(kind::timestamp)},
      {"modified_on", plain(kind::timestamp)},
      {"name", plain(kind::name)},
      {"description", plain(kind::text)},
      {"event_start_time", plain(kind::timestamp)},
      {"event_end_time", plain(kind::timestamp)},
      {"prequeue_start_time", plain(kind::timestamp, true)},
      {"shuffle_at_event_start", plain(kind::boolean)},
      {"suspended", plain(kind::boolean)},
      {"custom_page_html", plain(kind::text, true)},
      {"disable_session_renewal", plain(kind::boolean, true)},
      {"new_users_per_minute", integer(users_min, users_max, true)},
      {"total_active_users", integer(users_min, users_max, true)},
      {"session_duration", integer(session_min, session_max, true)},
      {"queueing_method", choice(queueing_methods, true)},
      {"turnstile_action", choice(turnstile_actions, true)},
      {"turnstile_mode", choice(turnstile_modes, true)}};
  return r;
}

std::string one_of(const std::vector<std::string>& options) {
  return fmt::format("one of {}", fmt::join(options, ", "));
}

void check_choice(const source& src, const std::string& key, const json& v,
                  const std::vector<std::string>& options) {
  if (!v.is_string() ||
      std::find(options.begin(), options.end(), v.get<std::string>()) == options.end())
    src.fail(key, one_of(options), shown(v));
}

// Checks one field against its rule; throws naming the file and the field's pointer.
void check_field(const source& src, const std::string& key, const json& v, const rule& r) {
  if (v.is_null()) {
    if (r.nullable) return;
    src.fail(key, "a value (Cloudflare does not give null here)", "null");
  }
  switch (r.type) {
    case kind::integer: {
      const std::string expected =
          fmt::format("an integer from {} to {} (Cloudflare's range)", r.min, r.max);
      if (!v.is_number_integer()) src.fail(key, expected, shown(v));
      const bool in_range = v.is_number_unsigned()
                                ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(r.max) &&
                                      v.get<std::uint64_t>() >= static_cast<std::uint64_t>(r.min)
                                : v.get<std::int64_t>() >= r.min && v.get<std::int64_t>() <= r.max;
      if (!in_range) src.fail(key, expected, shown(v));
      return;
    }
    case kind::boolean:
      if (!v.is_boolean())
        src.fail(key, "true or false", shown(v),
                 v.is_string() ? "a JSON boolean is written without quotes" : "");
      return;
    case kind::text:
      if (!v.is_string()) src.fail(key, "a string", shown(v));
      return;
    case kind::name:
      check_name(src, key, v);
      return;
    case kind::timestamp: {
      if (!v.is_string()) src.fail(key, time_expected, shown(v));
      const auto t = parse_time(v.get<std::string>());
      if (const auto* why = std::get_if<std::string>(&t))
        src.fail(key, time_expected, shown(v), *why);
      return;
    }
    case kind::choice:
      check_choice(src, key, v, r.options);
      return;
    case kind::status_code:
      if (!v.is_number_integer() || (v != 200 && v != 202 && v != 429))
        src.fail(key, "one of 200, 202, 429", shown(v));
      return;
    case kind::origin_commands: {
      const std::string expected = "an array of origin commands, such as [\"revoke\"]";
      if (!v.is_array()) src.fail(key, expected, shown(v));
      std::set<std::string> seen;
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string() || v[i] != "revoke")
          throw sim::input_error(src.at(key) + "/" + std::to_string(i), "an origin command: revoke",
                                 shown(v[i]));
        if (!seen.insert(v[i].get<std::string>()).second)
          throw sim::input_error(src.at(key) + "/" + std::to_string(i),
                                 "each command once (Cloudflare's items are unique)",
                                 shown(v[i]) + " again");
      }
      return;
    }
    case kind::routes: {
      if (!v.is_array()) src.fail(key, "an array of {\"host\", \"path\"} objects", shown(v));
      for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string at = src.at(key) + "/" + std::to_string(i);
        const json& route = v[i];
        if (!route.is_object())
          throw sim::input_error(at, "an object with host and path", shown(route));
        for (const auto& [k, x] : route.items()) {
          if (k != "host" && k != "path")
            throw sim::input_error(at + key_step(k), "host or path (a route's fields)",
                                   "an unknown field");
          if (!x.is_string()) throw sim::input_error(at + key_step(k), "a string", shown(x));
        }
      }
      return;
    }
    case kind::cookie_attributes: {
      if (!v.is_object()) src.fail(key, "an object with samesite and secure", shown(v));
      static const std::map<std::string, std::vector<std::string>> attrs{
          {"samesite", {"auto", "lax", "none", "strict"}}, {"secure", {"auto", "always", "never"}}};
      for (const auto& [k, x] : v.items()) {
        const auto it = attrs.find(k);
        if (it == attrs.end())
          throw sim::input_error(src.at(key) + key_step(k), "samesite or secure",
                                 "an unknown field");
        if (!x.is_string() || std::find(it->second.begin(), it->second.end(),
                                        x.get<std::string>()) == it->second.end())
          throw sim::input_error(src.at(key) + key_step(k), one_of(it->second), shown(x));
      }
      return;
    }
  }
}

// Checks every field of `src` against `rules`; the ones not in `mapped` are named as having
// no equivalent, the ones Cloudflare does not document as unknown. An event's null inherits.
void check_all(const source& src, const std::map<std::string, rule>& rules,
               const std::set<std::string>& mapped, const std::string& what,
               std::vector<std::string>& notes) {
  for (const auto& [key, value] : src.obj.items()) {
    const auto it = rules.find(key);
    if (it == rules.end()) {
      notes.push_back(src.at(key) + ": not a field of Cloudflare's " + what + " (ignored)");
      continue;
    }
    check_field(src, key, value, it->second);
    if (!mapped.count(key) && !(it->second.nullable && value.is_null()))
      notes.push_back(src.at(key) + ": no equivalent (ignored)");
  }
}

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
    if (required) ev.fail(key, time_expected + " (Cloudflare requires it)", "none");
    return std::nullopt;
  }
  return std::get<instant>(parse_time(ev.obj[key].get<std::string>()));  // checked already
}

}  // namespace

json cloudflare_scenario(const json& room_in, const std::optional<json>& event_in,
                         const json& arrivals, const std::string& room_file,
                         const std::string& event_file, std::vector<std::string>& notes) {
  const source room = open(room_in, room_file, "waiting room", notes);
  std::optional<source> event;
  if (event_in) event = open(*event_in, event_file, "waiting room event", notes);
  const source* ev = event ? &*event : nullptr;

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
  check_all(room, room_rules(), room_mapped, "waiting room object", notes);
  if (ev) check_all(*ev, event_rules(), event_mapped, "waiting room event object", notes);

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

  const auto required = [&](const std::string& key) {
    const setting s = effective(room, ev, key);
    if (!s)
      room.fail(
          key,
          fmt::format("an integer from {} to {} (Cloudflare requires it)", users_min, users_max),
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
                                room.at("session_duration"), session_default));
  if (const setting s = effective(room, ev, "disable_session_renewal"))
    release["disable_session_renewal"] = s.value->get<bool>();
  if (const setting s = effective(room, ev, "queueing_method"))
    release["queueing_method"] = s.value->get<std::string>();
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

  std::optional<instant> event_start;
  if (ev) {
    const instant start = *event_time(*ev, "event_start_time", true);
    const instant end = *event_time(*ev, "event_end_time", true);
    const std::optional<instant> prequeue = event_time(*ev, "prequeue_start_time", false);
    event_start = start;
    if (seconds_between(start, end) < event_min_length_s)
      ev->fail("event_end_time", "at least one minute after event_start_time (Cloudflare's rule)",
               fmt::format("{} s after it", seconds_between(start, end)));
    if (prequeue && seconds_between(*prequeue, start) < prequeue_min_lead_s)
      ev->fail("prequeue_start_time",
               "at least five minutes before event_start_time (Cloudflare's rule)",
               fmt::format("{} s before it", seconds_between(*prequeue, start)));
    const instant t0 = prequeue ? *prequeue : start;
    const double start_s = seconds_between(t0, start);
    const double end_s = seconds_between(t0, end);
    if (start_s > sim::max_input_seconds)
      ev->fail("prequeue_start_time",
               fmt::format("at most {} s before event_start_time (the simulation's clock)",
                           sim::max_input_seconds),
               fmt::format("{} s", start_s));
    release["event_start_s"] = start_s;
    const bool shuffle =
        ev->obj.contains("shuffle_at_event_start") && ev->obj["shuffle_at_event_start"].get<bool>();
    if (shuffle && !prequeue)
      ev->fail("shuffle_at_event_start",
               "false without a prequeue_start_time (Cloudflare shuffles the prequeue)", "true");
    if (ev->obj.contains("shuffle_at_event_start")) release["shuffle_at_event_start"] = shuffle;
    if (ev->obj.contains("suspended") && ev->obj["suspended"].get<bool>())
      notes.push_back(ev->at("suspended") +
                      ": true: Cloudflare would ignore the event; imported as if it were active");
    notes.push_back(fmt::format(
        "event: t = 0 is the {}; the event starts at {} s; its end ({} s) is not modelled: set "
        "/run/horizon_s to stop there",
        prequeue ? "prequeue's start" : "event's start", start_s, end_s));
  }
  // The room's next event is read-only metadata; its settings are in the event object.
  for (const char* key : {"next_event_prequeue_start_time", "next_event_start_time"}) {
    if (!room.obj.contains(key) || room.obj[key].is_null()) continue;
    const instant next = std::get<instant>(parse_time(room.obj[key].get<std::string>()));
    const bool is_start = std::string_view(key) == "next_event_start_time";
    if (!ev)
      notes.push_back(room.at(key) + " " + room.obj[key].dump(-1, ' ', true) +
                      ": the room has an event coming; it is not imported (ignored): pass its "
                      "object with --event");
    else if (is_start && event_start && seconds_between(*event_start, next) != 0.0)
      notes.push_back(room.at(key) + " " + room.obj[key].dump(-1, ' ', true) +
                      ": not the start of the event given with --event (" + event_file +
                      "); the --event file's is imported");
    else if (is_start)
      notes.push_back(room.at(key) + ": the event given with --event (imported)");
    else
      notes.push_back(room.at(key) + ": the event's prequeue_start_time is used instead");
  }

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
