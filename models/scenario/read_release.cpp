// /release: the mode (tick, concurrency, active users, serving counter), its selection and
// its controller.
#include "models/scenario/names.hpp"
#include "models/scenario/sections.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/release/selection.hpp"

namespace waitroom::models::section {

namespace {

selection_spec read_selection(const object_reader& rel, const std::vector<user_class>& classes,
                              const std::vector<list_spec>& lists, bool tick) {
  selection_spec sel;
  std::vector<std::string> keys{"kind"};
  for (const auto& p : selection_policies()) keys.insert(keys.end(), p.keys.begin(), p.keys.end());
  auto r = rel.object("selection", keys, false);
  if (!r) return sel;
  const std::string kind = r->choice("kind", std::nullopt, selection_policy_names());
  for (const auto& p : selection_policies())
    for (const auto& key : p.keys)
      r->only_when(key, "for selection", kind, "selection", std::string(p.name));
  for (const auto& p : selection_policies())
    if (p.name == kind) {
      sel.kind = p.kind;
      p.read(*r, selection_read_context{classes, lists, tick}, sel);
    }
  return sel;
}

controller_spec read_controller(const object_reader& rel) {
  controller_spec c;
  auto r = rel.object("controller",
                      {"kind", "tiers_ms", "factors", "max_step", "hold_rounds", "every_s",
                       "window_s", "low_ms", "high_ms", "up", "down", "floor", "ceiling"},
                      false);
  if (!r) return c;
  c.kind = read_enum<controller_kind>(*r, "kind", std::nullopt);
  auto numbers = [&](const std::string& key, std::vector<double>& into) {
    if (!r->has(key)) return;
    const json& a = r->array(key, 1);
    into.clear();
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_number() || a[i].get<double>() < 0)
        r->fail_item(key, i, "a number >= 0", describe(a[i]));
      into.push_back(a[i].get<double>());
    }
  };
  numbers("tiers_ms", c.tiers_ms);
  numbers("factors", c.factors);
  if (c.factors.size() != c.tiers_ms.size() + 1)
    r->fail("factors", fmt::format("{} factors, one more than tiers_ms", c.tiers_ms.size() + 1),
            fmt::format("{}", c.factors.size()));
  for (std::size_t i = 1; i < c.tiers_ms.size(); ++i)
    if (c.tiers_ms[i] <= c.tiers_ms[i - 1])
      r->fail_item("tiers_ms", i, "increasing tiers", fmt::format("{}", c.tiers_ms[i]));
  c.max_step = r->number("max_step", 0.1, {0.0, 1.0, true});
  c.hold_rounds = static_cast<std::uint32_t>(r->integer("hold_rounds", 2, 0, 1000000));
  c.every_s = r->number("every_s", 5.0, {0.0, max_seconds, true});
  refuse_below_clock_step(*r, "every_s", c.every_s);  // 0 ns: a look at the same instant forever
  c.window_s = r->number("window_s", 60.0, {0.0, max_seconds, true});
  refuse_below_clock_step(*r, "window_s", c.window_s);
  c.low_ms = r->number("low_ms", 200.0, {0.0, 1e12});
  c.high_ms = r->number("high_ms", 500.0, {c.low_ms, 1e12});
  c.up = r->number("up", 0.1, {0.0, 10.0});
  c.down = r->number("down", 0.2, {0.0, 1.0});
  c.floor = r->number("floor", 1.0, {0.0, 1e9});
  c.ceiling = r->number("ceiling", 0.0, {0.0, 1e9});
  if (c.ceiling > 0 && c.floor > c.ceiling)
    r->fail("floor", fmt::format("a floor at most the ceiling ({})", c.ceiling),
            fmt::format("{} (the batch would never go below it, so the ceiling binds nothing)",
                        c.floor));
  return c;
}

// Cloudflare Waiting Room's knobs, under their API names (docs/products.md).
const std::vector<std::string> active_users_keys{"total_active_users",
                                                 "new_users_per_minute",
                                                 "new_users_window",
                                                 "session_duration_min",
                                                 "disable_session_renewal",
                                                 "revoke_on_exit",
                                                 "queueing_method",
                                                 "queue_all_until_s",
                                                 "event_start_s",
                                                 "shuffle_at_event_start",
                                                 "visit"};

active_users_spec read_active_users(const object_reader& r) {
  active_users_spec a;
  a.total_active_users =
      static_cast<std::uint32_t>(r.integer("total_active_users", std::nullopt, 1, max_users));
  a.new_users_per_minute =
      static_cast<std::uint32_t>(r.integer("new_users_per_minute", std::nullopt, 1, max_users));
  a.window = read_enum<rate_window>(r, "new_users_window", rate_window::fixed);
  a.session_duration_s =
      60.0 * r.number("session_duration_min", 5.0, {0.0, max_seconds / 60, true});
  refuse_below_clock_step(r, "session_duration_min", a.session_duration_s);
  a.disable_session_renewal = r.boolean("disable_session_renewal", false);
  a.revoke_on_exit = r.boolean("revoke_on_exit", false);
  a.method = read_enum<queueing_method>(r, "queueing_method", queueing_method::fifo);
  a.queue_all_until_s = r.number("queue_all_until_s", 0.0, {0.0, max_seconds});
  if (r.has("event_start_s"))
    a.event_start_s = r.number("event_start_s", std::nullopt, {0.0, max_seconds});
  a.shuffle_at_event_start = r.boolean("shuffle_at_event_start", false);
  if (a.shuffle_at_event_start && !a.event_start_s)
    r.fail("shuffle_at_event_start", "an event_start_s (the prequeue is shuffled at the start)",
           "none");
  if (auto v = r.object("visit", {"requests", "think_s"}, false)) {
    if (v->has("requests")) a.requests = read_distribution(*v, "requests");
    if (v->has("think_s")) a.think_s = read_distribution(*v, "think_s");
  }
  if (a.method == queueing_method::random && r.has("selection"))
    r.fail("selection",
           "no selection with queueing_method random (it draws among everyone waiting)",
           "a selection");
  return a;
}

// AWS Virtual Waiting Room's inlet strategies (docs/products.md).
const std::vector<std::string> serving_counter_keys{
    "inlet", "increment",   "inlet_interval_s", "start_s",
    "end_s", "alarm_rt_ms", "alarm_error_rate", "max_size"};

serving_counter_spec read_serving_counter(const object_reader& r) {
  serving_counter_spec c;
  const std::string inlet = r.choice("inlet", std::nullopt, names_of<inlet_kind>());
  for (const char* k :
       {"increment", "inlet_interval_s", "start_s", "end_s", "alarm_rt_ms", "alarm_error_rate"})
    r.only_when(k, "for inlet", inlet, "inlet", "periodic");
  r.only_when("max_size", "for inlet", inlet, "inlet", "max_size");
  c.inlet = *value_of<inlet_kind>(inlet);
  if (c.inlet == inlet_kind::periodic) {
    c.increment = static_cast<std::uint32_t>(r.integer("increment", std::nullopt, 0, max_users));
    c.start_s = r.number("start_s", 0.0, {0.0, max_seconds});
    if (r.has("end_s")) c.end_s = r.number("end_s", std::nullopt, {c.start_s, max_seconds});
    if (r.has("alarm_rt_ms")) c.alarm_rt_ms = r.number("alarm_rt_ms", std::nullopt, {0.0, 1e12});
    if (r.has("alarm_error_rate"))
      c.alarm_error_rate = r.number("alarm_error_rate", std::nullopt, {0.0, 1.0});
  } else {
    c.max_size = static_cast<std::uint32_t>(r.integer("max_size", std::nullopt, 1, max_users));
  }
  return c;
}

}  // namespace

release_spec read_release(const object_reader& top, const std::vector<user_class>& classes,
                          const std::vector<list_spec>& lists) {
  std::vector<std::string> keys{"mode",         "interval_ms", "batch",     "rate_per_s",
                                "slots",        "session_s",   "selection", "controller",
                                "first_tick_s", "consumers",   "atomic"};
  keys.insert(keys.end(), active_users_keys.begin(), active_users_keys.end());
  keys.insert(keys.end(), serving_counter_keys.begin(), serving_counter_keys.end());
  auto r = *top.object("release", keys, true);
  release_spec rel;
  const std::string mode = r.choice("mode", std::nullopt, names_of<release_mode>());
  for (const auto& k : serving_counter_keys)
    r.only_when(k, "in release mode", mode, "mode", "serving_counter");
  r.only_when("interval_ms", "in release mode", mode, "mode", "tick");
  r.only_when("batch", "in release mode", mode, "mode", "tick");
  r.only_when("rate_per_s", "in release mode", mode, "mode", "tick");
  r.only_when("first_tick_s", "in release mode", mode, "mode", "tick");
  r.only_when("slots", "in release mode", mode, "mode", "concurrency");
  r.only_when("session_s", "in release mode", mode, "mode", "concurrency");
  for (const auto& k : active_users_keys)
    r.only_when(k, "in release mode", mode, "mode", "active_users");
  if (mode == "active_users") {
    rel.mode = release_mode::active_users;
    rel.active = read_active_users(r);
    if (rel.active.method == queueing_method::random) {  // a uniform draw: a one-weight lottery
      rel.selection.kind = selection_kind::lottery;
      rel.selection.class_weights.assign(classes.size(), 1.0);
    } else {
      rel.selection = read_selection(r, classes, lists, false);
    }
  } else if (mode == "serving_counter") {
    rel.mode = release_mode::serving_counter;
    rel.counter = read_serving_counter(r);
    rel.interval =
        sim::sim_time::from_seconds(r.number("inlet_interval_s", 60.0, {0.0, max_seconds, true}));
    if (rel.interval.ns() <= 0)
      r.fail("inlet_interval_s", "an interval of at least 1 ns", r.raw("inlet_interval_s").dump());
    rel.batch = std::max<std::uint32_t>(rel.counter.increment, 1);
    // One queue in number order: the counter serves numbers, not lists or classes.
    if (lists.size() > 1)
      r.fail("mode", "one list (the serving counter serves queue numbers in order)",
             std::to_string(lists.size()) + " lists in /queue/lists");
    if (r.has("selection"))
      r.fail("selection", "no selection (the serving counter serves queue numbers in order)",
             "a selection");
  } else if (mode == "tick") {
    rel.mode = release_mode::tick;
    // Users per second instead of a batch: the batch is the rate times the interval (200 ms
    // unless given) rounded to a whole user, at least 1, and the interval then batch / rate
    // to the nanosecond, so the long-run rate is the one given.
    const bool by_rate = r.has("rate_per_s");
    if (by_rate && r.has("batch"))
      r.fail("rate_per_s",
             "rate_per_s or batch, not both (to plan over the rate of a scenario with a batch: "
             "--unset /release/batch)",
             "both");
    rel.interval = sim::sim_time::from_ms(
        r.number("interval_ms", by_rate ? std::optional<double>(200.0) : std::nullopt,
                 {0.0, max_seconds * 1e3, true}));
    if (rel.interval.ns() <= 0)
      r.fail("interval_ms", "an interval of at least 1 ns", r.raw("interval_ms").dump());
    if (by_rate) {
      const double rate = r.number("rate_per_s", std::nullopt, {0.0, 1e9, true});
      const double users = std::round(rate * rel.interval.seconds());
      rel.batch =
          static_cast<std::uint32_t>(std::clamp(users, 1.0, static_cast<double>(max_users)));
      rel.interval =
          sim::sim_time::from_ns(std::llround(1e9 * static_cast<double>(rel.batch) / rate));
      if (rel.interval.ns() <= 0)
        r.fail("rate_per_s", "a rate with a tick of at least 1 ns", r.raw("rate_per_s").dump());
    } else {
      rel.batch = static_cast<std::uint32_t>(r.integer("batch", std::nullopt, 1, max_users));
    }
    if (r.has("first_tick_s"))
      rel.first_tick_s = r.number("first_tick_s", std::nullopt, {0.0, max_seconds});
  } else {
    rel.mode = release_mode::concurrency;
    rel.slots = static_cast<std::uint32_t>(r.integer("slots", std::nullopt, 1, 10'000'000));
    rel.session = read_distribution(r, "session_s");
  }
  if (rel.mode == release_mode::tick || rel.mode == release_mode::concurrency)
    rel.selection = read_selection(r, classes, lists, rel.mode == release_mode::tick);
  rel.controller = read_controller(r);
  if (rel.controller.kind != controller_kind::fixed && rel.mode != release_mode::tick)
    r.fail("controller", "tick release (a controller sets the batch per tick)",
           std::string(to_string(rel.mode)) + " mode");
  // Live Redis only: K gateway instances releasing at once, atomically or not.
  rel.consumers = static_cast<std::uint32_t>(r.integer("consumers", 1, 1, 1024));
  rel.atomic = r.boolean("atomic", true);
  if (rel.selection.kind == selection_kind::lottery && (rel.consumers > 1 || !rel.atomic))
    r.fail(r.has("consumers") ? "consumers" : "atomic",
           "the defaults with a lottery (the model draws each member and the script removes "
           "exactly it)",
           r.has("consumers") ? std::to_string(rel.consumers) : std::string("false"));
  if (rel.selection.kind == selection_kind::lottery && top.has("queue") &&
      top.raw("queue").contains("lists"))
    r.fail("selection", "no /queue/lists with a lottery (it draws from all waiting users)",
           "a lottery and /queue/lists");
  return rel;
}

}  // namespace waitroom::models::section
