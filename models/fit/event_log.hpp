#pragma once
// The log of a past event, one record per user (docs/calibration.md): JSON Lines or CSV with a
// header, the fields `user`, `class`, `joined_at` and, when known, `released_at`, `left_at`
// (gave up), `reached_backend_at`, `done_at`, `purchased`. Times are numbers (epoch seconds,
// or milliseconds with time_unit::ms) or ISO 8601 strings with an offset. The program's own
// `--trace` (JSON Lines of actions) is read too: its enter, release, abandon, reach, done and
// no_show lines become the same records. Records are checked as they stream; a bad one is an
// input_error naming the file, the line and the field.
#include <cstdint>
#include <functional>
#include <istream>
#include <optional>
#include <string>

namespace waitroom::models::fit {

struct user_record {
  std::string user;
  std::string user_class;
  double joined_s = 0;  // seconds since the epoch (or the trace's start)
  std::optional<double> released_s, left_s, reached_s, done_s;
  std::optional<bool> purchased;
  bool no_show = false;  // released, known never to reach the backend
  std::uint64_t line = 0;
};

enum class time_unit { s, ms };

// Reads `in` (named `name` in errors), calling `f` for each record in the order users joined.
// Throws sim::input_error on a malformed line, a missing field, a record out of order, a user
// seen twice, a time before the user joined, a release and a give-up of one user, a time
// without a UTC offset, text that is not UTF-8, or no record at all.
void read_event_log(std::istream& in, const std::string& name, time_unit unit,
                    const std::function<void(const user_record&)>& f);

// An ISO 8601 date and time with an offset (2026-11-29T10:00:00.250+01:00, ...Z) as seconds
// since the epoch; nullopt if `text` is not one. A time without an offset is not one: its
// zone is unknown.
std::optional<double> parse_iso8601(const std::string& text);

}  // namespace waitroom::models::fit
