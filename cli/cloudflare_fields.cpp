// The fields of Cloudflare's waiting room and event objects, each with the type and range the
// API documents (docs/products.md lists them).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cloudflare_input.hpp"
#include "sim/input_error.hpp"

namespace waitroom::cli::cloudflare {

using nlohmann::json;

namespace {

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
      if (!v.is_string()) src.fail(key, std::string(time_expected), shown(v));
      const auto t = parse_time(v.get<std::string>());
      if (const auto* why = std::get_if<std::string>(&t))
        src.fail(key, std::string(time_expected), shown(v), *why);
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

}  // namespace

void check_fields(const source& src, bool event, const std::set<std::string>& mapped,
                  std::vector<std::string>& notes) {
  if (event)
    check_all(src, event_rules(), mapped, "waiting room event object", notes);
  else
    check_all(src, room_rules(), mapped, "waiting room object", notes);
}

}  // namespace waitroom::cli::cloudflare
