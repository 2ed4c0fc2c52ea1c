#include "cloudflare_input.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "models/json/json_reader.hpp"

namespace waitroom::cli::cloudflare {

using nlohmann::json;

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

namespace {

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

}  // namespace

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

}  // namespace waitroom::cli::cloudflare
