#include "models/fit/event_log.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/input_error.hpp"
#include "sim/text_file.hpp"

namespace waitroom::models::fit {

namespace {

using nlohmann::json;

constexpr std::string_view fields[] = {"user",    "class",   "joined_at",          "released_at",
                                       "left_at", "done_at", "reached_backend_at", "purchased"};

bool digits(std::string_view s, std::size_t at, std::size_t n, int& out) {
  if (at + n > s.size()) return false;
  out = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

std::string shown(std::string_view s) {  // a value as an error message quotes it
  return s.size() > 60 ? fmt::format("'{}...'", s.substr(0, 60)) : fmt::format("'{}'", s);
}

// One log, read line by line: the checks every record passes, whatever its format.
class reader {
 public:
  reader(std::string name, time_unit unit, const std::function<void(const user_record&)>& f)
      : name_(std::move(name)), unit_(unit), f_(f) {}

  void line(std::string_view text, std::uint64_t number) {
    line_ = number;
    if (const auto bad = sim::first_non_utf8(text); bad != std::string_view::npos)
      fail("", "UTF-8 text",
           fmt::format("a byte 0x{:02x} that is not (column {})",
                       static_cast<unsigned char>(text[bad]), bad + 1));
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (text.find_first_not_of(" \t") == std::string_view::npos) return;
    if (format_ == format::unknown) {
      format_ = text.front() == '{' ? format::json_lines : format::csv;
      if (format_ == format::csv) return header(text);
    }
    if (format_ == format::csv) return csv_row(text);
    json j;
    try {
      j = json::parse(text);
    } catch (const json::parse_error& e) {
      fail("", "a JSON object on each line", fmt::format("text JSON cannot read ({})", e.what()));
    }
    if (!j.is_object()) fail("", "a JSON object on each line", j.type_name());
    const bool trace = j.contains("action");
    if (trace_ && *trace_ != trace)
      fail("", trace ? "a user's record, as on the lines before" : "a trace line (with `action`)",
           trace ? "a trace line (with `action`)" : "a user's record");
    trace_ = trace;
    if (trace) return trace_line(j);
    user_record r;
    for (const auto& [key, value] : j.items()) {
      if (std::find(std::begin(fields), std::end(fields), key) == std::end(fields)) unknown(key);
      if (!value.is_null()) set(r, key, value);
    }
    finish(r, j.contains("joined_at") && !j["joined_at"].is_null());
  }

  void end() {
    if (trace_ && *trace_) {
      const auto known = [](double t) { return std::isnan(t) ? std::nullopt : std::optional(t); };
      for (std::size_t serial = 0; serial < traced_.size(); ++serial) {
        const traced_visit& v = traced_[serial];
        if (v.line == 0) continue;
        user_record r{std::to_string(serial),
                      trace_classes_[v.class_index],
                      v.joined,
                      known(v.released),
                      known(v.left),
                      known(v.reached),
                      known(v.done),
                      std::nullopt,
                      v.no_show,
                      v.line};
        line_ = v.line;
        emit(r);
      }
    }
    if (count_ == 0) {
      line_ = 0;
      fail("", "at least one user's record", "none");
    }
    std::sort(seen_.begin(), seen_.end());
    for (std::size_t i = 1; i < seen_.size(); ++i)
      if (seen_[i].first == seen_[i - 1].first) {
        line_ = seen_[i].second;
        fail("/user", "each user once",
             fmt::format("the user of line {} again", seen_[i - 1].second));
      }
  }

 private:
  enum class format { unknown, json_lines, csv };

  [[noreturn]] void fail(const std::string& field, const std::string& expected,
                         const std::string& found) const {
    const std::string where = line_ ? fmt::format("{}:{}", name_, line_) : name_;
    throw sim::input_error(field.empty() ? where : where + ": " + field, expected, found);
  }

  [[noreturn]] void unknown(std::string_view key) const {
    fail("", fmt::format("only the fields {}", fmt::join(fields, ", ")), fmt::format("'{}'", key));
  }

  double time_of(const std::string& field, const json& v) const {
    if (v.is_number()) {
      const double x = v.get<double>();
      if (!std::isfinite(x) || x < 0) fail("/" + field, "a time at or after the epoch", v.dump());
      return unit_ == time_unit::ms ? x / 1000 : x;
    }
    if (v.is_string()) {
      if (const auto t = parse_iso8601(v.get<std::string>())) return *t;
      fail("/" + field,
           "an ISO 8601 time with a UTC offset (2026-11-29T10:00:00+01:00) or a number",
           shown(v.get<std::string>()));
    }
    fail("/" + field, "a time (a number or an ISO 8601 string)", v.type_name());
  }

  void set(user_record& r, const std::string& key, const json& v) const {
    if (key == "user") {
      if (v.is_string())
        r.user = v.get<std::string>();
      else if (v.is_number_integer())
        r.user = v.dump();
      else
        fail("/user", "a string or an integer", v.type_name());
    } else if (key == "class") {
      if (!v.is_string() || v.get<std::string>().empty())
        fail("/class", "a class name", v.is_string() ? "''" : v.type_name());
      r.user_class = v.get<std::string>();
    } else if (key == "purchased") {
      if (!v.is_boolean()) fail("/purchased", "true or false", v.dump());
      r.purchased = v.get<bool>();
    } else {
      const double t = time_of(key, v);
      if (key == "joined_at") r.joined_s = t;
      if (key == "released_at") r.released_s = t;
      if (key == "left_at") r.left_s = t;
      if (key == "reached_backend_at") r.reached_s = t;
      if (key == "done_at") r.done_s = t;
    }
  }

  void finish(user_record& r, bool joined) {
    if (r.user.empty()) fail("/user", "the user's id", "none");
    if (r.user_class.empty()) fail("/class", "the user's class", "none");
    if (!joined) fail("/joined_at", "the time the user joined", "none");
    const auto after = [&](const std::optional<double>& t, double from, const char* field,
                           const char* from_name) {
      if (t && *t < from)
        fail(fmt::format("/{}", field), fmt::format("a time at or after {}", from_name),
             fmt::format("{:.3f} s before it", from - *t));
    };
    after(r.released_s, r.joined_s, "released_at", "joined_at");
    after(r.left_s, r.joined_s, "left_at", "joined_at");
    after(r.reached_s, r.released_s.value_or(r.joined_s), "reached_backend_at",
          r.released_s ? "released_at" : "joined_at");
    after(r.done_s, r.reached_s.value_or(r.joined_s), "done_at",
          r.reached_s ? "reached_backend_at" : "joined_at");
    if (r.released_s && r.left_s)
      fail("/left_at", "a user who gave up or was released, not both",
           fmt::format("left_at and released_at"));
    r.line = line_;
    emit(r);
  }

  void emit(const user_record& r) {
    if (count_ > 0 && r.joined_s < last_joined_)
      fail("/joined_at", "records in the order users joined",
           fmt::format("{:.3f} s before the record above", last_joined_ - r.joined_s));
    last_joined_ = r.joined_s;
    seen_.emplace_back(std::hash<std::string>{}(r.user), r.line);
    ++count_;
    f_(r);
  }

  void header(std::string_view text) {
    split(text);
    for (const std::string& c : cells_) {
      if (std::find(std::begin(fields), std::end(fields), c) == std::end(fields)) unknown(c);
      if (std::find(columns_.begin(), columns_.end(), c) != columns_.end())
        fail("", "each column once", fmt::format("'{}' twice", c));
      columns_.push_back(c);
    }
    for (const char* need : {"user", "class", "joined_at"})
      if (std::find(columns_.begin(), columns_.end(), need) == columns_.end())
        fail("", fmt::format("a header naming the column '{}'", need), "none");
  }

  void csv_row(std::string_view text) {
    split(text);
    const auto& cells = cells_;
    if (cells.size() != columns_.size())
      fail("", fmt::format("{} cells, as the header names", columns_.size()),
           fmt::format("{}", cells.size()));
    user_record r;
    bool joined = false;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (cells[i].empty()) continue;  // unknown
      const std::string& key = columns_[i];
      const std::string& cell = cells[i];
      json v;
      if (key == "user" || key == "class") {
        v = cell;
      } else if (key == "purchased") {
        if (cell != "true" && cell != "false" && cell != "1" && cell != "0")
          fail("/purchased", "true, false, 1 or 0", shown(cell));
        v = cell == "true" || cell == "1";
      } else {
        char* end = nullptr;
        const double x = std::strtod(cell.c_str(), &end);
        v = end == cell.c_str() + cell.size() ? json(x) : json(cell);
      }
      joined |= key == "joined_at";
      set(r, key, v);
    }
    finish(r, joined);
  }

  // One CSV line's cells into cells_ (RFC 4180): a cell in double quotes may hold commas, and
  // "" inside it stands for one quote; spaces and tabs around a cell are dropped.
  void split(std::string_view text) {
    cells_.clear();
    const auto blank = [&](std::size_t i) { return text[i] == ' ' || text[i] == '\t'; };
    for (std::size_t i = 0;;) {
      std::string cell;
      while (i < text.size() && blank(i)) ++i;
      if (i < text.size() && text[i] == '"') {
        const std::size_t open = i++;
        for (;;) {
          if (i >= text.size())
            fail("", "a closing quote for the cell quoted at column " + std::to_string(open + 1),
                 "the end of the line");
          if (text[i] == '"' && i + 1 < text.size() && text[i + 1] == '"') {
            cell += '"';
            i += 2;
          } else if (text[i] == '"') {
            ++i;
            break;
          } else {
            cell += text[i++];
          }
        }
        while (i < text.size() && blank(i)) ++i;
        if (i < text.size() && text[i] != ',')
          fail("", "a comma after the quoted cell closed at column " + std::to_string(i),
               shown(text.substr(i, 1)));
      } else {
        const std::size_t comma = std::min(text.find(',', i), text.size());
        std::size_t end = comma;
        while (end > i && blank(end - 1)) --end;
        cell = text.substr(i, end - i);
        i = comma;
      }
      cells_.push_back(std::move(cell));
      if (i >= text.size()) return;
      ++i;  // the comma
    }
  }

  // The program's trace: one line per action; a visit's record is complete at the end.
  void trace_line(const json& j) {
    if (!j.contains("user") || j["user"].is_null()) return;  // direct or refused: never queued
    if (!j["user"].is_number_unsigned()) fail("/user", "a visit's serial", j["user"].dump());
    if (!j.contains("t_s") || !j["t_s"].is_number()) fail("/t_s", "a time in seconds", "none");
    const auto serial = j["user"].get<std::uint64_t>();
    const double t = j["t_s"].get<double>();
    const std::string action = j.value("action", "");
    if (action == "enter") {
      if (serial >= traced_.size()) traced_.resize(serial + 1);
      traced_visit& v = traced_[serial];
      if (v.line != 0) fail("/user", "each visit entering once", "a second enter");
      const std::string cls = j.value("class", "");
      const auto [at, added] =
          trace_class_index_.try_emplace(cls, static_cast<std::uint32_t>(trace_classes_.size()));
      if (added) trace_classes_.push_back(cls);
      v.class_index = at->second;
      v.joined = t;
      v.line = line_;
      return;
    }
    if (serial >= traced_.size() || traced_[serial].line == 0) return;  // entered before a window
    traced_visit& v = traced_[serial];
    if (action == "release") v.released = t;
    if (action == "abandon") v.left = t;
    if (action == "reach") v.reached = t;
    if (action == "done") v.done = t;
    if (action == "no_show") v.no_show = true;
  }

  // A visit of a trace until the trace ends (its lines come in time order, not per user):
  // 56 bytes, no strings; a time not seen is NaN.
  struct traced_visit {
    static constexpr double none = std::numeric_limits<double>::quiet_NaN();
    double joined = 0, released = none, left = none, reached = none, done = none;
    std::uint64_t line = 0;
    std::uint32_t class_index = 0;
    bool no_show = false;
  };

  std::string name_;
  time_unit unit_;
  const std::function<void(const user_record&)>& f_;
  format format_ = format::unknown;
  std::optional<bool> trace_;
  std::vector<std::string> columns_;
  std::vector<std::string> cells_;  // the CSV line's, reused line after line
  std::vector<traced_visit> traced_;
  std::vector<std::string> trace_classes_;
  std::map<std::string, std::uint32_t> trace_class_index_;
  std::vector<std::pair<std::size_t, std::uint64_t>> seen_;  // (hash of the user, line)
  std::uint64_t line_ = 0, count_ = 0;
  double last_joined_ = 0;
};

}  // namespace

std::optional<double> parse_iso8601(const std::string& text) {
  const std::string_view s(text);
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (!digits(s, 0, 4, y) || s.size() < 19 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != ' ') || !digits(s, 11, 2, h) ||
      s[13] != ':' || !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, sec))
    return std::nullopt;
  std::size_t at = 19;
  double frac = 0;
  if (at < s.size() && s[at] == '.') {
    double scale = 0.1;
    for (++at; at < s.size() && s[at] >= '0' && s[at] <= '9'; ++at, scale /= 10)
      frac += (s[at] - '0') * scale;
  }
  int offset_min = 0;
  if (at < s.size() && (s[at] == 'Z' || s[at] == 'z')) {
    ++at;
  } else if (at < s.size() && (s[at] == '+' || s[at] == '-')) {
    int oh = 0, om = 0;
    const bool colon = at + 3 < s.size() && s[at + 3] == ':';
    if (!digits(s, at + 1, 2, oh) || !digits(s, at + (colon ? 4 : 3), 2, om) || oh > 23 || om > 59)
      return std::nullopt;
    offset_min = (s[at] == '-' ? -1 : 1) * (oh * 60 + om);
    at += colon ? 6 : 5;
  } else {
    return std::nullopt;  // no offset: the zone is unknown
  }
  if (at != s.size() || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year{y},
                                         std::chrono::month{static_cast<unsigned>(mo)},
                                         std::chrono::day{static_cast<unsigned>(d)}};
  if (!date.ok()) return std::nullopt;
  const auto days = std::chrono::sys_days(date).time_since_epoch().count();
  return static_cast<double>(days) * 86400.0 + h * 3600.0 + mi * 60.0 + sec + frac -
         offset_min * 60.0;
}

void read_event_log(std::istream& in, const std::string& name, time_unit unit,
                    const std::function<void(const user_record&)>& f) {
  reader r(name, unit, f);
  std::string text;
  std::uint64_t number = 0;
  while (std::getline(in, text)) r.line(text, ++number);
  r.end();
}

}  // namespace waitroom::models::fit
