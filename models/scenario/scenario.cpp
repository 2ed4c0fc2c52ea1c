// Reading a scenario: the sections in order (each section's reader is in its own file,
// read_<section>.cpp), then the checks that span sections; --set and --unset overrides.
#include "models/scenario/scenario.hpp"

#include <fmt/format.h>

#include "models/json/json_reader.hpp"
#include "models/json/json_text.hpp"
#include "models/release/selection.hpp"
#include "models/scenario/names.hpp"
#include "models/scenario/sections.hpp"
#include "sim/text_file.hpp"

namespace waitroom::models {

using namespace section;

std::vector<std::string> scenario::class_names() const {
  std::vector<std::string> out;
  for (const auto& c : classes) out.push_back(c.name);
  return out;
}

// What the serving counter needs from the other sections: numbers in entry order (the FIFO
// policy) and, for the alarm and the max-size inlet's exits, a backend.
void check_serving_counter(const object_reader& top, const scenario& s) {
  const auto& c = s.release.counter;
  const std::string where = top.file() + ": /release/";
  if (s.policy.order != ordering::fifo)
    throw sim::input_error(top.file() + ": /queue/policy",
                           "\"fifo\" with the serving counter (queue numbers are given in "
                           "entry order)",
                           std::string("\"") + to_string(s.policy.order) + "\"");
  if (c.inlet == inlet_kind::max_size && !s.backend)
    throw sim::input_error(where + "inlet",
                           "a backend block with the max-size inlet (its exits move the counter)",
                           "none");
  if ((c.alarm_rt_ms || c.alarm_error_rate) && !s.backend)
    throw sim::input_error(where + (c.alarm_rt_ms ? "alarm_rt_ms" : "alarm_error_rate"),
                           "a backend block (the alarm watches its responses)", "none");
  if (c.alarm_error_rate && !s.backend->timeout_s)
    throw sim::input_error(where + "alarm_error_rate",
                           "/backend/timeout_s (an error is a response slower than it)", "none");
}

namespace {
// Decidable at load: without a horizon, a ratio list of weight 0 (never picked, work-conserving
// or not) that receives users who cannot abandon or age out of it never drains. Other runs
// that cannot drain are found while running (room::stall_reason).
void refuse_undrainable(const scenario& s, const std::string& file) {
  const auto& sel = s.release.selection;
  if (s.run.horizon_s || sel.kind != selection_kind::ratio || !sel.schedule.empty()) return;
  for (std::size_t l = 0; l < sel.weights.size() && l < s.lists.size(); ++l) {
    if (sel.weights[l] > 0.0 || s.lists[l].max_wait_s) continue;
    for (std::size_t c = 0; c < s.classes.size(); ++c) {
      if ((s.classes[c].share <= 0.0 && s.arrivals.classes_by_share()) || s.classes[c].patience_s)
        continue;
      for (std::uint32_t to : s.route[c])
        if (to == l)
          throw sim::input_error(
              fmt::format("{}: /release/selection/weights/{}", file, l),
              "a weight above 0, or a horizon (/run/horizon_s)",
              fmt::format("0 for list '{}', which class '{}' enters and cannot leave (a ratio "
                          "never picks a list of weight 0, /release/selection/work_conserving "
                          "or not)",
                          s.lists[l].name, s.classes[c].name));
    }
  }
}
}  // namespace

namespace {

// Settings that run but are likely not what the user meant: warned, not refused, since a
// --set comparison (offset policy against fifo on one file) or a class kept at share 0 for a
// later sweep are legitimate.
void note_unmeant(scenario& s, const std::string& file) {
  for (std::size_t c = 0; c < s.classes.size(); ++c) {
    const auto& u = s.classes[c];
    if (u.share == 0 && s.classes.size() > 1)
      s.warnings.push_back(
          fmt::format("{}: /classes/{}/share: class {} has share 0: none of its "
                      "users arrive",
                      file, c, u.name));
    if (u.offset_ms != 0 && s.policy.order != ordering::offset)
      s.warnings.push_back(fmt::format(
          "{}: /classes/{}/offset_ms: ignored under /queue/policy {} (only the offset policy "
          "subtracts it from the score)",
          file, c, name_of(s.policy.order)));
  }
  const auto& a = s.arrivals;
  if (a.backlog_users == 0 && a.none())
    s.warnings.push_back(file +
                         ": /arrivals: no user arrives (every rate is 0 and there is no "
                         "backlog): every figure of the run will be empty");
}

}  // namespace

scenario parse_scenario(const json& j, const std::string& file, const std::string& base_dir) {
  object_reader top(
      j, file, "",
      {"$schema", "name", "description", "seed", "classes", "arrivals", "queue", "skus", "release",
       "admission", "backend", "returns", "polling", "run", "sla", "redis"});
  scenario s;
  s.name = top.name("name", std::nullopt);
  s.description = top.text("description", "");
  s.seed =
      static_cast<std::uint64_t>(top.integer("seed", 1, 0, static_cast<std::int64_t>(max_seed)));
  s.classes = read_classes(top);
  s.arrivals = read_arrivals(top, s.class_names(), base_dir);
  s.skus = read_skus(top);
  s.policy = read_policy(top, s.classes, s.skus, s.lists, s.compensation);
  s.route = route_users(top, s.classes, s.skus, s.lists);
  s.release = read_release(top, s.classes, s.lists);
  if (s.release.mode == release_mode::active_users && s.release.active.shuffle_at_event_start)
    s.policy.floor_ns = sim::sim_time::from_seconds(*s.release.active.event_start_s).ns();
  if (s.compensation && s.release.selection.kind == selection_kind::lottery)
    throw sim::input_error(file + ": /queue/compensation",
                           "no temporary-VIP credits with a lottery (a draw ignores scores, so a "
                           "credit could change nothing)",
                           "compensation with selection kind lottery");
  s.admission = read_admission(top);
  s.backend = read_backend(top, s.release.mode != release_mode::concurrency);
  if (s.release.mode == release_mode::serving_counter) check_serving_counter(top, s);
  if (s.release.controller.kind != controller_kind::fixed && !s.backend)
    top.fail("backend", "a backend whose response time the controller watches", "none");
  s.returns = read_returns(top);
  s.polling = read_polling(top);
  s.run = read_run(top, s.arrivals);
  if (s.returns && s.returns->probability >= 1.0 && !s.run.horizon_s)
    throw sim::input_error(file + ": /run/horizon_s",
                           "a horizon, since every user returns (returns/probability is 1) and "
                           "the run would never end",
                           "none");
  // Redis commands are counted per second of simulated time (8 counters a second).
  constexpr double max_polling_horizon_s = 1e6;
  if (s.polling && s.run.horizon_s && *s.run.horizon_s > max_polling_horizon_s)
    throw sim::input_error(file + ": /run/horizon_s",
                           "at most 1000000 s with polling (its Redis commands are counted "
                           "per second)",
                           fmt::format("{} s", *s.run.horizon_s));
  s.sla = read_sla(top, s.classes, s.polling.has_value(), s.backend.has_value());
  if (auto r = top.object("redis", {"tokens"}, false)) {
    // Read as text, not a choice: the message (kept as it was) names both values.
    const std::string t = r->text("tokens", name_of(token_format::hex));
    if (auto f = value_of<token_format>(t))
      s.redis.tokens = *f;
    else
      r->fail("tokens", "\"hex\" or \"signed\"", "\"" + t + "\"");
  }
  if (auto finish = selection_policy_of(s.release.selection.kind).finish)
    finish(s.sla, s.classes, file + ": /release/selection/kind", s.release.selection);
  refuse_undrainable(s, file);
  refuse_beyond_clock(s, file);
  note_unmeant(s, file);
  return s;
}

json parse_json_text(const std::string& text, const std::string& name) {
  sim::check_text(text, name);
  return parse_json_strict(text, name);
}

json read_json_file(const std::string& path) {
  return parse_json_strict(sim::read_text_file(path, "a scenario file"), path);
}

namespace {

// An array index beyond the end would make nlohmann pad the array with nulls (and allocate
// for all of them): --set /classes/5/share on two classes then blamed /classes/2. Only an
// existing index, or the one just past the end (or "-"), which appends.
void check_override_path(const json& j, const json::json_pointer& p, const std::string& text) {
  std::vector<std::string> tokens;
  for (json::json_pointer q = p; !q.empty(); q = q.parent_pointer())
    tokens.insert(tokens.begin(), q.back());
  const json* at = &j;  // null once the path leaves what exists (it is created)
  std::string so_far;
  for (const auto& t : tokens) {
    const std::string here = so_far.empty() ? "/" : so_far;
    so_far.push_back('/');
    so_far.append(json_pointer_escape(t));
    if (at == nullptr) {  // past what exists: a number token makes a new array this long
      if (!t.empty() && t != "0" && t.find_first_not_of("0123456789") == std::string::npos)
        throw sim::input_error("--set " + text,
                               fmt::format("0 or - (a new array starts empty) at {}", here),
                               "the index " + t);
      continue;
    }
    if (!at->is_array()) {
      at = at->is_object() && at->contains(t) ? &at->at(t) : nullptr;
      continue;
    }
    const std::size_t size = at->size();
    const std::string expected = fmt::format(
        "an index from 0 to {} at {} (an array of {}; {} or - appends)", size, here, size, size);
    std::size_t index = size;
    if (t != "-") {
      if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos ||
          (t.size() > 1 && t[0] == '0'))
        throw sim::input_error("--set " + text, expected, describe(json(t)));
      index = std::stoul(t);
    }
    if (index > size) throw sim::input_error("--set " + text, expected, std::to_string(index));
    at = index < size ? &at->at(index) : nullptr;
  }
}

}  // namespace

void apply_override(json& j, const std::string& assignment) {
  // A scenario is JSON, whose text is UTF-8 (else writing it back threw: exit 3, not 2).
  sim::require_utf8("--set", assignment);
  auto eq = assignment.find('=');
  if (assignment.empty() || assignment[0] != '/' || eq == std::string::npos)
    throw sim::input_error("--set", "/json/pointer=value", "'" + assignment + "'");
  std::string ptr = assignment.substr(0, eq);
  std::string value = assignment.substr(eq + 1);
  // A bare word is a string (--set /queue/policy=fifo); JSON too deep, with a repeated key
  // or a number out of range is an error, not a string.
  json v = looks_like_json(value) ? parse_json_strict(value, "--set " + ptr) : json(value);
  // null is not "absent" in a scenario: say how to remove a key rather than fail later.
  if (v.is_null())
    throw sim::input_error("--set " + assignment, "a JSON value other than null",
                           "null (to remove the key, use --unset " + ptr + ")");
  try {
    json::json_pointer p(ptr);
    check_override_path(j, p, ptr);
    j[p] = std::move(v);
  } catch (const json::exception& e) {
    throw sim::input_error("--set " + assignment, "a JSON pointer into the scenario", e.what());
  }
}

void apply_unset(json& j, const std::string& pointer) {
  sim::require_utf8("--unset", pointer);
  const std::string flag = "--unset " + pointer;
  if (pointer.empty() || pointer[0] != '/')
    throw sim::input_error(flag, "a JSON pointer such as /run/warmup_s", "'" + pointer + "'");
  json::json_pointer p;
  try {
    p = json::json_pointer(pointer);
  } catch (const json::exception& e) {
    throw sim::input_error(flag, "a JSON pointer into the scenario", e.what());
  }
  // A key that is not there is an error, not a no-op: a typo must not pass silently.
  if (!j.contains(p))
    throw sim::input_error(flag, "a key present in the scenario", "no value at " + pointer);
  json& parent = j.at(p.parent_pointer());
  const std::string last = p.back();
  if (parent.is_object()) {
    parent.erase(last);
  } else {
    parent.erase(static_cast<std::size_t>(std::stoull(last)));  // contains() checked the index
  }
}

}  // namespace waitroom::models
