#pragma once
// Reading Cloudflare's waiting room API objects for `waitroom import cloudflare`: the API's
// envelope, the documented ranges, values as messages show them, and RFC 3339 times.
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/input_error.hpp"

namespace waitroom::cli::cloudflare {

// Cloudflare's documented ranges (the API's schema; docs/products.md cites them).
inline constexpr std::int64_t users_min = 200;
inline constexpr std::int64_t users_max = 2147483647;
inline constexpr std::int64_t session_min = 1;
inline constexpr std::int64_t session_max = 30;
inline constexpr std::int64_t session_default = 5;
inline constexpr double event_min_length_s = 60.0;    // start at least one minute before the end
inline constexpr double prequeue_min_lead_s = 300.0;  // the prequeue at least five minutes before

// JSON as the user wrote it, short, with every non-ASCII character escaped: a value may hold
// control or bidirectional-override characters that would garble the terminal's line.
std::string shown(const nlohmann::json& j);
// A key as a JSON pointer step, quoted and escaped when it is not plain ASCII.
std::string key_step(const std::string& key);

// One input file's object: the room or the event, out of its API envelope if it had one.
struct source {
  nlohmann::json obj;
  std::string file;
  std::string prefix;  // "/result" when the file is an API response
  std::string at(const std::string& key) const { return file + ": " + prefix + key_step(key); }
  [[noreturn]] void fail(const std::string& key, const std::string& expected,
                         const std::string& found, const std::string& hint = {}) const {
    throw sim::input_error(at(key), expected, found, hint);
  }
};

// The object a file holds. An API response ({"success", "errors", "messages", "result"}) is
// opened; an error response is reported as one, not as the fields it lacks.
source open(const nlohmann::json& j, const std::string& file, const std::string& what,
            std::vector<std::string>& notes);

// An instant of an RFC 3339 time: whole seconds and the nanoseconds after them.
struct instant {
  std::chrono::sys_seconds s{};
  std::int64_t ns = 0;
};

double seconds_between(const instant& from, const instant& to);

// An RFC 3339 date-time (ISO 8601's profile the API writes): 2021-09-28T15:30:00.000Z, or
// with an offset such as +01:00, which is applied. The calendar date and every time field
// are checked (2026-02-30, 24:00 and a seconds field of 60 or more are refused). Returns why
// the text is not one, for the message.
std::variant<instant, std::string> parse_time(std::string_view t);

inline constexpr std::string_view time_expected =
    "an RFC 3339 time such as 2021-09-28T15:30:00.000Z or 2021-09-28T16:30:00+01:00";

// Checks every field of a room (or, `event`, an event) object against the type and range the
// API documents; throws naming the file and the field's pointer. The fields not in `mapped`
// are named in `notes` as having no equivalent, the ones Cloudflare does not document as
// unknown. An event's null inherits the room's value.
void check_fields(const source& src, bool event, const std::set<std::string>& mapped,
                  std::vector<std::string>& notes);

}  // namespace waitroom::cli::cloudflare
