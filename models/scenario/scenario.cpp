// Reading, validating and writing back a scenario. Past 450 lines: the split into one reader
// per section plus one writer is still to do.
#include "models/scenario/scenario.hpp"

#include "models/release/selection.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "models/scenario/json_reader.hpp"
#include "models/scenario/json_text.hpp"
#include "sim/text_file.hpp"

namespace waitroom::models {

namespace {

constexpr double max_seconds = sim::max_input_seconds;
constexpr std::int64_t max_users = std::int64_t{1} << 31;
constexpr double max_samples = 1e7;  // queue-length samples a run may record

sim::distribution read_distribution(const object_reader& parent, const std::string& key) {
  const object_reader r = *parent.object(
      key, {"dist", "value", "mean", "min", "max", "stddev", "shape", "scale", "k", "samples"},
      true);
  std::string kind = r.choice("dist", std::nullopt,
                              {"deterministic", "exponential", "uniform", "normal", "lognormal",
                               "gamma", "erlang", "empirical"});
  // Each kind takes exactly its own parameters; a stray one is a mistake worth reporting.
  std::vector<std::string> params;
  if (kind == "deterministic") params = {"value"};
  if (kind == "exponential") params = {"mean"};
  if (kind == "uniform") params = {"min", "max"};
  if (kind == "normal" || kind == "lognormal") params = {"mean", "stddev"};
  if (kind == "gamma") params = {"shape", "scale"};
  if (kind == "erlang") params = {"k", "mean"};
  if (kind == "empirical") params = {"samples"};
  for (const auto& [k, v] : parent.raw(key).items()) {
    if (k != "dist" && std::find(params.begin(), params.end(), k) == params.end()) {
      std::string all;
      for (const auto& p : params) all += (all.empty() ? "" : ", ") + p;
      r.fail(k, "a parameter of the " + kind + " distribution (" + all + ")", "'" + k + "'");
    }
  }
  const number_range non_negative{0.0};
  const number_range positive{0.0, std::numeric_limits<double>::infinity(), true};
  const number_range positive_time{0.0, max_seconds, true};
  if (kind == "deterministic")
    return sim::distribution::constant(r.number("value", std::nullopt, {0.0, max_seconds}));
  if (kind == "exponential")
    return sim::distribution::exponential(r.number("mean", std::nullopt, positive_time));
  if (kind == "uniform") {
    double lo = r.number("min", std::nullopt, {0.0, max_seconds});
    double hi = r.number("max", std::nullopt, {lo, max_seconds, true});
    return sim::distribution::uniform(lo, hi);
  }
  if (kind == "normal")
    return sim::distribution::normal(r.number("mean", std::nullopt, {0.0, max_seconds}),
                                     r.number("stddev", std::nullopt, non_negative));
  if (kind == "lognormal") {
    // Given by the mean and standard deviation of the duration itself.
    double m = r.number("mean", std::nullopt, positive_time);
    double sd = r.number("stddev", std::nullopt, non_negative);
    double s2 = std::log1p((sd * sd) / (m * m));
    return sim::distribution::lognormal(std::log(m) - 0.5 * s2, std::sqrt(s2));
  }
  if (kind == "gamma")
    return sim::distribution::gamma(r.number("shape", std::nullopt, positive),
                                    r.number("scale", std::nullopt, positive_time));
  if (kind == "erlang")
    return sim::distribution::erlang(static_cast<int>(r.integer("k", std::nullopt, 1, 1000)),
                                     r.number("mean", std::nullopt, positive_time));
  const json& arr = r.array("samples", 1);
  std::vector<double> xs;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const json& v = arr[i];
    if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > max_seconds)
      r.fail_item("samples", i, "a number >= 0", describe(v));
    xs.push_back(v.get<double>());
  }
  return sim::distribution::empirical(std::move(xs));
}

std::vector<user_class> read_classes(const object_reader& top) {
  const json& arr = top.array("classes", 1);
  std::vector<user_class> out;
  std::set<std::string> names;
  if (arr.size() > 127) top.fail("classes", "at most 127 classes", std::to_string(arr.size()));
  for (std::size_t i = 0; i < arr.size(); ++i) {
    object_reader c(arr[i], top.file(), top.pointer("classes") + "/" + std::to_string(i),
                    {"name", "share", "level", "offset_ms", "patience_s", "pay_later_probability"});
    user_class u;
    u.name = c.text("name", std::nullopt);
    if (u.name.empty() || u.name.find_first_of(",\n\r") != std::string::npos ||
        std::any_of(u.name.begin(), u.name.end(),
                    [](char ch) { return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f; }))
      c.fail("name", "a non-empty name without commas, newlines or control characters",
             describe(json(u.name)));
    if (!names.insert(u.name).second)
      c.fail("name", "a name not used by another class", "\"" + u.name + "\" again");
    // "all" is everyone in reports and SLA targets: only a lone class (which is everyone)
    // may be called that.
    if (u.name == "all" && arr.size() > 1)
      c.fail("name",
             "a name other than 'all' when there are several classes ('all' is every class in "
             "reports and sla targets)",
             "\"all\"");
    u.share =
        c.number("share", arr.size() == 1 ? std::optional<double>(1.0) : std::nullopt, {0.0, 1.0});
    u.level = c.number("level", static_cast<double>(i), {0.0, 899.0});
    u.offset_ms = c.number("offset_ms", 0.0, {0.0, max_seconds * 1e3});
    if (c.has("patience_s")) u.patience_s = read_distribution(c, "patience_s");
    u.pay_later_probability = c.number("pay_later_probability", 0.0, {0.0, 1.0});
    if (u.pay_later_probability > 0 && !u.patience_s)
      c.fail("pay_later_probability", "a patience_s (only users who give up can pay later)",
             "no patience_s");
    out.push_back(u);
  }
  double total = 0;
  for (const auto& u : out) total += u.share;
  if (std::abs(total - 1.0) > 1e-9)
    top.fail("classes", "class shares that sum to 1", fmt::format("a sum of {:.9g}", total));
  return out;
}

arrival_spec read_arrivals(const object_reader& top, const std::vector<std::string>& class_names,
                           const std::string& base_dir) {
  auto r = *top.object(
      "arrivals",
      {"process", "rate_per_s", "segments", "trace_file", "interarrival_s", "backlog_users"}, true);
  arrival_spec a;
  std::string kind =
      r.choice("process", std::nullopt, {"poisson", "piecewise", "trace", "renewal"});
  r.only_when("interarrival_s", "for process", kind, "process", "renewal");
  r.only_when("rate_per_s", "for process", kind, "process", "poisson");
  r.only_when("segments", "for process", kind, "process", "piecewise");
  r.only_when("trace_file", "for process", kind, "process", "trace");
  // Fewer than 2^31 users in a run, the backlog included.
  a.backlog_users = static_cast<std::uint64_t>(r.integer("backlog_users", 0, 0, max_users - 1));
  if (kind == "poisson") {
    a.kind = arrival_kind::poisson;
    a.rate_per_s = r.number("rate_per_s", std::nullopt, {0.0, 1e9, true});
  } else if (kind == "piecewise") {
    a.kind = arrival_kind::piecewise;
    const json& segs = r.array("segments", 1);
    double expected = 0;
    for (std::size_t i = 0; i < segs.size(); ++i) {
      object_reader s(segs[i], r.file(), r.pointer("segments") + "/" + std::to_string(i),
                      {"duration_s", "rate_per_s"});
      sim::rate_segment seg{s.number("duration_s", std::nullopt, {0.0, max_seconds, true}),
                            s.number("rate_per_s", std::nullopt, {0.0, 1e9})};
      expected += seg.duration_s * seg.rate_per_s;
      a.segments.push_back(seg);
    }
    double total_s = 0;
    for (const auto& seg : a.segments) total_s += seg.duration_s;
    if (total_s > max_seconds)
      r.fail("segments",
             fmt::format("segments lasting at most {:.0f} s together (100 years; "
                         "the clock ends at about 292)",
                         max_seconds),
             fmt::format("{:.6g} s", total_s));
    if (expected + static_cast<double>(a.backlog_users) > static_cast<double>(max_users))
      r.fail("segments", "fewer than 2^31 expected users in one run (with backlog_users)",
             a.backlog_users > 0 ? fmt::format("{:.3g} expected from the segments and {} in "
                                               "the backlog",
                                               expected, a.backlog_users)
                                 : fmt::format("{:.3g} expected", expected));
  } else if (kind == "renewal") {
    a.kind = arrival_kind::renewal;
    a.interarrival_s = read_distribution(r, "interarrival_s");
    if (!(a.interarrival_s.mean() > 0))
      r.fail("interarrival_s", "an interarrival time with a mean above 0",
             fmt::format("a mean of {}", a.interarrival_s.mean()));
  } else {
    a.kind = arrival_kind::trace;
    a.trace_file = r.text("trace_file", std::nullopt);
    std::filesystem::path p(a.trace_file);
    if (p.is_relative()) p = std::filesystem::path(base_dir) / p;
    a.trace = sim::read_trace_csv(p.string(), class_names);
  }
  return a;
}

std::vector<sku_spec> read_skus(const object_reader& top) {
  if (!top.has("skus")) return {};
  const json& arr = top.array("skus", 1);
  std::vector<sku_spec> out;
  std::set<std::string> names;
  double total = 0;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    object_reader k(arr[i], top.file(), top.pointer("skus") + "/" + std::to_string(i),
                    {"name", "share"});
    sku_spec sk{
        k.text("name", std::nullopt),
        k.number("share", arr.size() == 1 ? std::optional<double>(1.0) : std::nullopt, {0.0, 1.0})};
    if (!names.insert(sk.name).second)
      k.fail("name", "a name not used by another SKU", "\"" + sk.name + "\" again");
    total += sk.share;
    out.push_back(sk);
  }
  if (std::abs(total - 1.0) > 1e-9)
    top.fail("skus", "SKU shares that sum to 1", fmt::format("a sum of {:.9g}", total));
  return out;
}

// Names (of classes or SKUs) to indices, for /queue/lists/i/<key>.
template <class T>
std::vector<std::uint32_t> read_names(const object_reader& l, const std::string& key,
                                      const std::vector<T>& known, const std::string& what) {
  std::vector<std::uint32_t> out;
  if (!l.has(key)) return out;
  const json& cs = l.array(key, 1);
  for (std::size_t k = 0; k < cs.size(); ++k) {
    auto it = std::find_if(known.begin(), known.end(), [&](const T& t) {
      return cs[k].is_string() && t.name == cs[k].get<std::string>();
    });
    if (it == known.end()) l.fail_item(key, k, "the name of " + what, describe(cs[k]));
    out.push_back(static_cast<std::uint32_t>(it - known.begin()));
  }
  return out;
}

std::vector<list_spec> read_lists(const object_reader& q, const std::vector<user_class>& classes,
                                  const std::vector<sku_spec>& skus) {
  std::vector<list_spec> lists;
  if (!q.has("lists")) {
    list_spec all{"all", {}, {}, std::nullopt};
    for (std::uint32_t c = 0; c < classes.size(); ++c) all.classes.push_back(c);
    return {all};
  }
  const json& arr = q.array("lists", 1);
  if (arr.size() > 32) q.fail("lists", "at most 32 lists", std::to_string(arr.size()));
  std::vector<int> owner(classes.size(), -1);  // class-only lists: which list took a class
  std::set<std::string> names;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    object_reader l(arr[i], q.file(), q.pointer("lists") + "/" + std::to_string(i),
                    {"name", "classes", "skus", "max_wait_s"});
    list_spec ls;
    ls.name = l.text("name", std::nullopt);
    if (!names.insert(ls.name).second)
      l.fail("name", "a name not used by another list", "\"" + ls.name + "\" again");
    if (l.has("skus") && skus.empty())
      l.fail("skus", "no 'skus' here unless /skus lists them", l.raw("skus").dump());
    ls.classes = read_names(l, "classes", classes, "a class in /classes");
    ls.skus = read_names(l, "skus", skus, "a SKU in /skus");
    if (!l.has("skus") && !l.has("classes"))
      l.fail("classes", "'classes' or 'skus' (who goes into this list)", "neither");
    if (ls.skus.empty())
      for (std::size_t k = 0; k < ls.classes.size(); ++k) {
        std::uint32_t c = ls.classes[k];
        if (owner[c] >= 0)
          l.fail_item("classes", k, "a class in one list only",
                      "'" + classes[c].name + "', already in list " + std::to_string(owner[c]));
        owner[c] = static_cast<int>(i);
      }
    if (l.has("max_wait_s")) {
      if (i == 0)
        l.fail("max_wait_s", "no aging on the first list (there is no list above it)",
               l.raw("max_wait_s").dump());
      ls.max_wait_s = l.number("max_wait_s", std::nullopt, {0.0, max_seconds, true});
    }
    lists.push_back(std::move(ls));
  }
  return lists;
}

// Each (class, SKU) goes to the first list that names its class (or no class) and its SKU
// (or no SKU). Every combination must have a list, and every list some combination.
std::vector<std::vector<std::uint32_t>> route_users(const object_reader& top,
                                                    const std::vector<user_class>& classes,
                                                    const std::vector<sku_spec>& skus,
                                                    const std::vector<list_spec>& lists) {
  const std::size_t nsku = std::max<std::size_t>(1, skus.size());
  std::vector<std::vector<std::uint32_t>> route(classes.size(), std::vector<std::uint32_t>(nsku));
  std::vector<bool> reached(lists.size(), false);
  auto has = [](const std::vector<std::uint32_t>& v, std::uint32_t x) {
    return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
  };
  for (std::uint32_t c = 0; c < classes.size(); ++c)
    for (std::uint32_t k = 0; k < nsku; ++k) {
      std::optional<std::uint32_t> found;
      for (std::uint32_t l = 0; l < lists.size() && !found; ++l)
        if (has(lists[l].classes, c) && (skus.empty() || has(lists[l].skus, k))) found = l;
      if (!found) {
        std::string who = "class '" + classes[c].name + "'";
        if (!skus.empty()) who += " buying '" + skus[k].name + "'";
        throw sim::input_error(top.file() + ": /queue/lists", "a list for every user",
                               who + " in none");
      }
      route[c][k] = *found;
      reached[*found] = true;
    }
  for (std::size_t l = 0; l < lists.size(); ++l)
    if (!reached[l])
      throw sim::input_error(
          top.file() + ": /queue/lists/" + std::to_string(l), "a list that some users reach",
          "'" + lists[l].name + "': every user it names goes to an earlier list");
  return route;
}

std::optional<compensation_spec> read_compensation(const object_reader& q,
                                                   const std::vector<user_class>& classes,
                                                   ordering order) {
  auto r = q.object("compensation", {"threshold_s", "offset_ms", "classes", "in_place"}, false);
  if (!r) return std::nullopt;
  if (order != ordering::offset)
    q.fail("compensation", "the offset policy (a credit is a score offset)",
           std::string("policy '") + to_string(order) + "'");
  compensation_spec c;
  c.threshold_s = r->number("threshold_s", 120.0, {0.0, max_seconds, true});
  c.offset_ms = r->number("offset_ms", std::nullopt, {0.0, max_seconds * 1e3, true});
  c.in_place = r->boolean("in_place", false);
  c.eligible.assign(classes.size(), false);
  if (r->has("classes")) {
    const json& cs = r->array("classes", 1);
    for (std::size_t k = 0; k < cs.size(); ++k) {
      auto it = std::find_if(classes.begin(), classes.end(), [&](const user_class& uc) {
        return cs[k].is_string() && uc.name == cs[k].get<std::string>();
      });
      if (it == classes.end())
        r->fail_item("classes", k, "the name of a class in /classes", describe(cs[k]));
      c.eligible[static_cast<std::size_t>(it - classes.begin())] = true;
    }
  } else {  // by default, every class with a smaller offset than the credit gives
    for (std::size_t k = 0; k < classes.size(); ++k)
      c.eligible[k] = classes[k].offset_ms < c.offset_ms;
  }
  return c;
}

std::optional<returns_spec> read_returns(const object_reader& top) {
  auto r = top.object("returns", {"probability", "delay_s"}, false);
  if (!r) return std::nullopt;
  returns_spec rs;
  rs.probability = r->number("probability", std::nullopt, {0.0, 1.0});
  rs.delay_s = read_distribution(*r, "delay_s");
  return rs;
}

score_policy read_policy(const object_reader& top, const std::vector<user_class>& classes,
                         const std::vector<sku_spec>& skus, std::vector<list_spec>& lists,
                         std::optional<compensation_spec>& compensation) {
  score_policy p;
  auto r =
      top.object("queue", {"policy", "time_unit", "score_noise", "lists", "compensation"}, false);
  lists = r ? read_lists(*r, classes, skus)
            : read_lists(object_reader(json::object(), top.file(), "/queue", {}), classes, skus);
  if (r) {
    std::string o = r->choice("policy", "offset", {"fifo", "offset", "level"});
    p.order = o == "fifo" ? ordering::fifo : o == "level" ? ordering::level : ordering::offset;
    std::string u = r->choice("time_unit", "ms", {"s", "ms", "us", "min"});
    p.unit = u == "s"     ? time_unit::s
             : u == "us"  ? time_unit::us
             : u == "min" ? time_unit::min
                          : time_unit::ms;
    p.noise = r->number("score_noise", 0.0, {0.0, 1e12});
  }
  double ms_per_unit = score_policy::unit_ns(p.unit) / 1e6;
  for (const auto& c : classes) {
    p.offset_units.push_back(c.offset_ms / ms_per_unit);
    p.level.push_back(c.level);
  }
  if (r) compensation = read_compensation(*r, classes, p.order);
  if (compensation) {  // a credited visit scores as an extra class with the credit's offset
    p.offset_units.push_back(compensation->offset_ms / ms_per_unit);
    p.level.push_back(0.0);
  }
  return p;
}

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

controller_spec read_controller(const object_reader& rel);

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
  a.window = r.choice("new_users_window", "fixed", {"fixed", "sliding"}) == "fixed"
                 ? rate_window::fixed
                 : rate_window::sliding;
  a.session_duration_s =
      60.0 * r.number("session_duration_min", 5.0, {0.0, max_seconds / 60, true});
  a.disable_session_renewal = r.boolean("disable_session_renewal", false);
  a.revoke_on_exit = r.boolean("revoke_on_exit", false);
  const std::string m =
      r.choice("queueing_method", "fifo", {"fifo", "random", "passthrough", "reject"});
  a.method = m == "fifo"          ? queueing_method::fifo
             : m == "random"      ? queueing_method::random
             : m == "passthrough" ? queueing_method::passthrough
                                  : queueing_method::reject;
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
  if (m == "random" && r.has("selection"))
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
  const std::string inlet = r.choice("inlet", std::nullopt, {"periodic", "max_size"});
  for (const char* k :
       {"increment", "inlet_interval_s", "start_s", "end_s", "alarm_rt_ms", "alarm_error_rate"})
    r.only_when(k, "for inlet", inlet, "inlet", "periodic");
  r.only_when("max_size", "for inlet", inlet, "inlet", "max_size");
  if (inlet == "periodic") {
    c.inlet = inlet_kind::periodic;
    c.increment = static_cast<std::uint32_t>(r.integer("increment", std::nullopt, 0, max_users));
    c.start_s = r.number("start_s", 0.0, {0.0, max_seconds});
    if (r.has("end_s")) c.end_s = r.number("end_s", std::nullopt, {c.start_s, max_seconds});
    if (r.has("alarm_rt_ms")) c.alarm_rt_ms = r.number("alarm_rt_ms", std::nullopt, {0.0, 1e12});
    if (r.has("alarm_error_rate"))
      c.alarm_error_rate = r.number("alarm_error_rate", std::nullopt, {0.0, 1.0});
  } else {
    c.inlet = inlet_kind::max_size;
    c.max_size = static_cast<std::uint32_t>(r.integer("max_size", std::nullopt, 1, max_users));
  }
  return c;
}

release_spec read_release(const object_reader& top, const std::vector<user_class>& classes,
                          const std::vector<list_spec>& lists) {
  std::vector<std::string> keys{"mode",      "interval_ms", "batch",      "slots",
                                "session_s", "selection",   "controller", "first_tick_s"};
  keys.insert(keys.end(), active_users_keys.begin(), active_users_keys.end());
  keys.insert(keys.end(), serving_counter_keys.begin(), serving_counter_keys.end());
  auto r = *top.object("release", keys, true);
  release_spec rel;
  std::string mode =
      r.choice("mode", std::nullopt, {"tick", "concurrency", "active_users", "serving_counter"});
  for (const auto& k : serving_counter_keys)
    r.only_when(k, "in release mode", mode, "mode", "serving_counter");
  r.only_when("interval_ms", "in release mode", mode, "mode", "tick");
  r.only_when("batch", "in release mode", mode, "mode", "tick");
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
    rel.interval = sim::sim_time::from_ms(
        r.number("interval_ms", std::nullopt, {0.0, max_seconds * 1e3, true}));
    if (rel.interval.ns() <= 0)
      r.fail("interval_ms", "an interval of at least 1 ns", r.raw("interval_ms").dump());
    rel.batch = static_cast<std::uint32_t>(r.integer("batch", std::nullopt, 1, max_users));
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
  if (rel.selection.kind == selection_kind::lottery && top.has("queue") &&
      top.raw("queue").contains("lists"))
    r.fail("selection", "no /queue/lists with a lottery (it draws from all waiting users)",
           "a lottery and /queue/lists");
  return rel;
}

run_spec read_run(const object_reader& top, const arrival_spec& arrivals) {
  run_spec run;
  auto r = top.object(
      "run",
      {"horizon_s", "max_events", "sample_interval_s", "warmup_s", "warmup_customers", "warmup"},
      false);
  if (r) {
    if (r->has("horizon_s"))
      run.horizon_s = r->number("horizon_s", std::nullopt, {0.0, max_seconds, true});
    run.max_events =
        static_cast<std::uint64_t>(r->integer("max_events", 0, 0, std::int64_t{1} << 62));
    run.sample_interval_s = r->number("sample_interval_s", 1.0, {1e-6, max_seconds});
    int given = r->has("warmup_s") + r->has("warmup_customers") + r->has("warmup");
    if (given > 1)
      r->fail("warmup", "one of warmup_s, warmup_customers or warmup", "more than one");
    // 0 means no warm-up (a value a sweep or a --set can reach), echoed as no key at all.
    if (r->has("warmup_s")) {
      run.warmup_s = r->number("warmup_s", std::nullopt, {0.0, max_seconds});
      run.warmup = run.warmup_s > 0 ? warmup_kind::time : warmup_kind::none;
    } else if (r->has("warmup_customers")) {
      run.warmup_customers =
          static_cast<std::uint64_t>(r->integer("warmup_customers", std::nullopt, 0, max_users));
      run.warmup = run.warmup_customers > 0 ? warmup_kind::customers : warmup_kind::none;
    } else if (r->has("warmup")) {
      r->choice("warmup", std::nullopt, {"mser5"});
      run.warmup = warmup_kind::mser5;
    }
  }
  bool unbounded =
      arrivals.kind == arrival_kind::poisson || arrivals.kind == arrival_kind::renewal ||
      (arrivals.kind == arrival_kind::piecewise && std::isinf(arrivals.segments.back().duration_s));
  if (unbounded && !run.horizon_s)
    throw sim::input_error(top.file() + ": /run/horizon_s",
                           "a horizon, since Poisson arrivals never end", "none");
  if (run.horizon_s) {
    double rate = arrivals.kind == arrival_kind::poisson     ? arrivals.rate_per_s
                  : arrivals.kind == arrival_kind::piecewise ? arrivals.segments.back().rate_per_s
                  : arrivals.kind == arrival_kind::renewal   ? 1.0 / arrivals.interarrival_s.mean()
                                                             : 0.0;
    double expected = rate * *run.horizon_s + static_cast<double>(arrivals.backlog_users);
    if (unbounded && expected > static_cast<double>(max_users))
      throw sim::input_error(top.file() + ": /run/horizon_s",
                             "a horizon with fewer than 2^31 expected users",
                             fmt::format("{} s at {} users/s", *run.horizon_s, rate));
    if (*run.horizon_s / run.sample_interval_s > max_samples)
      throw sim::input_error(top.file() + ": /run/sample_interval_s",
                             fmt::format("at most {:.0f} samples over the horizon", max_samples),
                             fmt::format("{} s over {} s", run.sample_interval_s, *run.horizon_s));
  }
  return run;
}

std::optional<admission_spec> read_admission(const object_reader& top) {
  auto r = top.object(
      "admission", {"stock", "order_failure_probability", "cancel_probability", "cancel_delay_s"},
      false);
  if (!r) return std::nullopt;
  admission_spec a;
  a.stock = static_cast<std::uint64_t>(r->integer("stock", std::nullopt, 0, max_users));
  a.order_failure_probability = r->number("order_failure_probability", 0.0, {0.0, 1.0});
  a.cancel_probability = r->number("cancel_probability", 0.0, {0.0, 1.0});
  if (a.cancel_probability > 0)
    a.cancel_delay_s = read_distribution(*r, "cancel_delay_s");
  else if (r->has("cancel_delay_s"))
    r->fail("cancel_delay_s", "no cancel delay without a cancel_probability above 0", "a delay");
  return a;
}

// "sla": {"confidence": 0.95, "replications": 10, "targets": [{"class": "vip",
// "metric": "mean_wait_s", "max": 20}, ...]}
std::optional<sla_spec> read_sla(const object_reader& top, const std::vector<user_class>& classes,
                                 bool polling, bool backend) {
  auto r = top.object("sla", {"confidence", "replications", "targets"}, false);
  if (!r) return std::nullopt;
  sla_spec spec;
  spec.confidence = r->number("confidence", 0.95, {0.5, 0.9999});
  spec.replications = static_cast<std::uint32_t>(r->integer("replications", 10, 2, 100000));
  const json& ts = r->array("targets", 1);
  std::vector<std::string> class_options{"all"};
  for (const auto& c : classes) class_options.push_back(c.name);
  for (std::size_t i = 0; i < ts.size(); ++i) {
    object_reader t(ts[i], top.file(), r->pointer("targets") + "/" + std::to_string(i),
                    {"class", "metric", "max", "min"});
    sla_target target;
    std::string cls = t.choice("class", "all", class_options);
    for (std::size_t c = 0; c < classes.size(); ++c)
      if (classes[c].name == cls) target.user_class = static_cast<std::int32_t>(c);
    std::string metric = t.choice("metric", std::nullopt, sla_metric_names());
    const auto& names = sla_metric_names();
    target.metric =
        static_cast<sla_metric>(std::find(names.begin(), names.end(), metric) - names.begin());
    if (needs_polling(target.metric) && !polling)
      t.fail("metric", "a metric the scenario can measure ('" + metric + "' needs a polling block)",
             metric);
    if (needs_backend(target.metric) && !backend)
      t.fail("metric", "a metric the scenario can measure ('" + metric + "' needs a backend block)",
             metric);
    if (t.has("max")) target.max = t.number("max", std::nullopt, {0.0, 1e15});
    if (t.has("min")) target.min = t.number("min", std::nullopt, {0.0, 1e15});
    if (!target.max && !target.min) t.fail("max", "a 'max' or a 'min' limit", "neither");
    spec.targets.push_back(target);
  }
  return spec;
}

std::optional<backend_spec> read_backend(const object_reader& top, bool tick) {
  auto r = top.object("backend",
                      {"workers", "service_s", "discipline", "capacity", "timeout_s",
                       "arrival_delay_s", "no_show_probability", "reclaim_s", "window_s"},
                      false);
  if (!r) return std::nullopt;
  if (!tick)
    r->fail("workers",
            "tick, active_users or serving_counter release (in concurrency mode the slots are the "
            "backend)",
            "concurrency mode");
  backend_spec b;
  b.workers = static_cast<std::uint32_t>(r->integer("workers", std::nullopt, 1, 10'000'000));
  b.service_s = read_distribution(*r, "service_s");
  b.processor_sharing = r->choice("discipline", "fifo", {"fifo", "ps"}) == "ps";
  if (r->has("capacity")) {
    const json& arr = r->array("capacity", 1);
    double last = -1;
    for (std::size_t i = 0; i < arr.size(); ++i) {
      object_reader c(arr[i], top.file(), r->pointer("capacity") + "/" + std::to_string(i),
                      {"at_s", "workers"});
      capacity_change ch{
          c.number("at_s", std::nullopt, {0.0, max_seconds}),
          static_cast<std::uint32_t>(c.integer("workers", std::nullopt, 0, 10'000'000))};
      if (ch.at_s <= last)
        c.fail("at_s", fmt::format("a time after {}", last), describe(c.raw("at_s")));
      last = ch.at_s;
      b.capacity.push_back(ch);
    }
  }
  if (r->has("timeout_s"))
    b.timeout_s = r->number("timeout_s", std::nullopt, {0.0, max_seconds, true});
  if (r->has("arrival_delay_s")) b.arrival_delay_s = read_distribution(*r, "arrival_delay_s");
  b.no_show_probability = r->number("no_show_probability", 0.0, {0.0, 1.0});
  b.reclaim_s = r->number("reclaim_s", 60.0, {0.0, max_seconds, true});
  b.window_s = r->number("window_s", 10.0, {0.001, max_seconds});
  return b;
}

std::optional<polling_spec> read_polling(const object_reader& top) {
  auto r =
      top.object("polling",
                 {"interval_s", "suggest", "suggest_every_s", "cache_s", "start_jitter_s",
                  "smooth_rank_s", "follow_share", "eta_rounds", "eta_recent_s", "eta_fit_samples"},
                 false);
  if (!r) return std::nullopt;
  polling_spec p;
  // Poll times are whole milliseconds, so that counts per second are exact in integers.
  const number_range interval{0.001, 86400.0};
  if (r->has("suggest")) {
    if (r->has("interval_s"))
      r->fail("interval_s", "either a fixed interval_s or suggested intervals, not both", "both");
    const json& arr = r->array("suggest", 1);
    for (std::size_t i = 0; i < arr.size(); ++i) {
      object_reader st(arr[i], top.file(), r->pointer("suggest") + "/" + std::to_string(i),
                       {"above", "interval_s"});
      suggest_step step;
      step.above = static_cast<std::uint64_t>(st.integer(
          "above", i == 0 ? std::optional<std::int64_t>{0} : std::nullopt, 0, max_users));
      step.interval_s = st.number("interval_s", std::nullopt, interval);
      if (i == 0 && step.above != 0)
        st.fail("above", "0 for the first step (it covers an empty queue)",
                std::to_string(step.above));
      if (i > 0 && step.above <= p.suggest.back().above)
        st.fail("above", fmt::format("more than {}", p.suggest.back().above),
                std::to_string(step.above));
      p.suggest.push_back(step);
    }
    p.suggest_every_s = r->number("suggest_every_s", 1.0, {0.001, 86400.0});
  } else {
    p.interval_s = r->number("interval_s", 3.0, interval);
    if (r->has("suggest_every_s"))
      r->fail("suggest_every_s", "no refresh period without suggested intervals", "one");
  }
  p.cache_s = r->number("cache_s", 0.0, {0.0, 86400.0});
  p.start_jitter_s = r->number("start_jitter_s", 0.0, {0.0, 86400.0});
  p.smooth_rank_s = r->number("smooth_rank_s", 10.0, {0.0, 86400.0});
  p.follow_share = r->number("follow_share", 0.01, {0.0, 1.0});
  p.eta_rounds = static_cast<std::uint32_t>(r->integer("eta_rounds", 5, 1, 1000));
  p.eta_recent_s = r->number("eta_recent_s", 10.0, {0.001, 86400.0});
  p.eta_fit_samples = static_cast<std::uint32_t>(r->integer("eta_fit_samples", 50, 2, 100000));
  return p;
}

controller_spec read_controller(const object_reader& rel) {
  controller_spec c;
  auto r = rel.object("controller",
                      {"kind", "tiers_ms", "factors", "max_step", "hold_rounds", "every_s",
                       "window_s", "low_ms", "high_ms", "up", "down", "floor", "ceiling"},
                      false);
  if (!r) return c;
  std::string kind = r->choice("kind", std::nullopt, {"fixed", "tiered", "window"});
  c.kind = kind == "tiered"   ? controller_kind::tiered
           : kind == "window" ? controller_kind::window
                              : controller_kind::fixed;
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
  c.window_s = r->number("window_s", 60.0, {0.0, max_seconds, true});
  c.low_ms = r->number("low_ms", 200.0, {0.0, 1e12});
  c.high_ms = r->number("high_ms", 500.0, {c.low_ms, 1e12});
  c.up = r->number("up", 0.1, {0.0, 10.0});
  c.down = r->number("down", 0.2, {0.0, 1.0});
  c.floor = r->number("floor", 1.0, {0.0, 1e9});
  c.ceiling = r->number("ceiling", 0.0, {0.0, 1e9});
  return c;
}

}  // namespace

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
      if ((s.classes[c].share <= 0.0 && s.arrivals.kind != arrival_kind::trace) ||
          s.classes[c].patience_s)
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

scenario parse_scenario(const json& j, const std::string& file, const std::string& base_dir) {
  object_reader top(
      j, file, "",
      {"$schema", "name", "description", "seed", "classes", "arrivals", "queue", "skus", "release",
       "admission", "backend", "returns", "polling", "run", "sla", "redis"});
  scenario s;
  s.name = top.text("name", std::nullopt);
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
    std::string t = r->text("tokens", "hex");
    if (t == "signed")
      s.redis.tokens = token_format::signed_hmac;
    else if (t != "hex")
      r->fail("tokens", "\"hex\" or \"signed\"", "\"" + t + "\"");
  }
  if (auto finish = selection_policy_of(s.release.selection.kind).finish)
    finish(s.sla, s.classes, file + ": /release/selection/kind", s.release.selection);
  refuse_undrainable(s, file);
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
    if (at == nullptr || !at->is_array()) {
      at = at != nullptr && at->is_object() && at->contains(t) ? &at->at(t) : nullptr;
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

sim::arrival_process make_arrival_process(const arrival_spec& a) {
  switch (a.kind) {
    case arrival_kind::poisson:
      return sim::arrival_process::poisson(a.rate_per_s);
    case arrival_kind::piecewise:
      return sim::arrival_process::piecewise(a.segments);
    case arrival_kind::trace:
      return sim::arrival_process::replay(a.trace);
    case arrival_kind::renewal:
      return sim::arrival_process::renewal(a.interarrival_s);
  }
  return sim::arrival_process::poisson(1.0);
}

json to_json(const sim::distribution& d) {
  json j{{"dist", to_string(d.kind)}};
  switch (d.kind) {
    case sim::dist_kind::deterministic:
      j["value"] = d.a;
      break;
    case sim::dist_kind::exponential:
      j["mean"] = d.a;
      break;
    case sim::dist_kind::uniform:
      j["min"] = d.a;
      j["max"] = d.b;
      break;
    case sim::dist_kind::normal:
      j["mean"] = d.a;
      j["stddev"] = d.b;
      break;
    case sim::dist_kind::lognormal: {
      double m = d.mean();
      j["mean"] = m;
      j["stddev"] = m * std::sqrt(std::expm1(d.b * d.b));
      break;
    }
    case sim::dist_kind::gamma:
      j["shape"] = d.a;
      j["scale"] = d.b;
      break;
    case sim::dist_kind::erlang:
      j["k"] = static_cast<int>(d.a);
      j["mean"] = d.b;
      break;
    case sim::dist_kind::empirical:
      j["samples"] = d.samples;
      break;
  }
  return j;
}

json to_json(const scenario& s) {
  json j;
  j["name"] = s.name;
  if (!s.description.empty()) j["description"] = s.description;
  j["seed"] = s.seed;
  j["classes"] = json::array();
  for (const auto& c : s.classes) {
    json cj{{"name", c.name}, {"share", c.share}, {"level", c.level}, {"offset_ms", c.offset_ms}};
    if (c.patience_s) {
      cj["patience_s"] = to_json(*c.patience_s);
      cj["pay_later_probability"] = c.pay_later_probability;
    }
    j["classes"].push_back(cj);
  }
  if (!s.skus.empty()) {
    j["skus"] = json::array();
    for (const auto& k : s.skus) j["skus"].push_back({{"name", k.name}, {"share", k.share}});
  }
  json a;
  switch (s.arrivals.kind) {
    case arrival_kind::poisson:
      a["process"] = "poisson";
      a["rate_per_s"] = s.arrivals.rate_per_s;
      break;
    case arrival_kind::piecewise:
      a["process"] = "piecewise";
      a["segments"] = json::array();
      for (const auto& seg : s.arrivals.segments)
        a["segments"].push_back({{"duration_s", seg.duration_s}, {"rate_per_s", seg.rate_per_s}});
      break;
    case arrival_kind::trace:
      a["process"] = "trace";
      a["trace_file"] = s.arrivals.trace_file;
      break;
    case arrival_kind::renewal:
      a["process"] = "renewal";
      a["interarrival_s"] = to_json(s.arrivals.interarrival_s);
      break;
  }
  a["backlog_users"] = s.arrivals.backlog_users;
  j["arrivals"] = a;
  j["queue"] = {{"policy", to_string(s.policy.order)},
                {"time_unit", to_string(s.policy.unit)},
                {"score_noise", s.policy.noise}};
  json lists = json::array();
  for (const auto& l : s.lists) {
    json lj{{"name", l.name}};
    if (!l.classes.empty()) lj["classes"] = json::array();
    for (std::uint32_t c : l.classes) lj["classes"].push_back(s.classes[c].name);
    if (!l.skus.empty()) lj["skus"] = json::array();
    for (std::uint32_t k : l.skus) lj["skus"].push_back(s.skus[k].name);
    if (l.max_wait_s) lj["max_wait_s"] = *l.max_wait_s;
    lists.push_back(lj);
  }
  j["queue"]["lists"] = lists;
  if (s.compensation) {
    json cj{{"threshold_s", s.compensation->threshold_s},
            {"offset_ms", s.compensation->offset_ms},
            {"in_place", s.compensation->in_place},
            {"classes", json::array()}};
    for (std::size_t c = 0; c < s.classes.size(); ++c)
      if (s.compensation->eligible[c]) cj["classes"].push_back(s.classes[c].name);
    j["queue"]["compensation"] = cj;
  }
  if (s.backend) {
    json b{{"workers", s.backend->workers},
           {"service_s", to_json(s.backend->service_s)},
           {"discipline", s.backend->processor_sharing ? "ps" : "fifo"}};
    if (!s.backend->capacity.empty()) {
      b["capacity"] = json::array();
      for (const auto& ch : s.backend->capacity)
        b["capacity"].push_back({{"at_s", ch.at_s}, {"workers", ch.workers}});
    }
    if (s.backend->timeout_s) b["timeout_s"] = *s.backend->timeout_s;
    b["arrival_delay_s"] = to_json(s.backend->arrival_delay_s);
    b["no_show_probability"] = s.backend->no_show_probability;
    b["reclaim_s"] = s.backend->reclaim_s;
    b["window_s"] = s.backend->window_s;
    j["backend"] = b;
  }
  if (s.polling) {
    const auto& p = *s.polling;
    json pj;
    if (p.suggest.empty()) {
      pj["interval_s"] = p.interval_s;
    } else {
      pj["suggest"] = json::array();
      for (const auto& st : p.suggest)
        pj["suggest"].push_back({{"above", st.above}, {"interval_s", st.interval_s}});
      pj["suggest_every_s"] = p.suggest_every_s;
    }
    pj["cache_s"] = p.cache_s;
    pj["start_jitter_s"] = p.start_jitter_s;
    pj["smooth_rank_s"] = p.smooth_rank_s;
    pj["follow_share"] = p.follow_share;
    pj["eta_rounds"] = p.eta_rounds;
    pj["eta_recent_s"] = p.eta_recent_s;
    pj["eta_fit_samples"] = p.eta_fit_samples;
    j["polling"] = pj;
  }
  if (s.returns)
    j["returns"] = {{"probability", s.returns->probability},
                    {"delay_s", to_json(s.returns->delay_s)}};
  json r{{"mode", to_string(s.release.mode)}};
  if (s.release.mode == release_mode::tick) {
    r["interval_ms"] = static_cast<double>(s.release.interval.ns()) / 1e6;
    r["batch"] = s.release.batch;
    if (s.release.first_tick_s) r["first_tick_s"] = *s.release.first_tick_s;
  } else if (s.release.mode == release_mode::concurrency) {
    r["slots"] = s.release.slots;
    r["session_s"] = to_json(s.release.session);
  } else if (s.release.mode == release_mode::active_users) {
    const active_users_spec& au = s.release.active;
    r["total_active_users"] = au.total_active_users;
    r["new_users_per_minute"] = au.new_users_per_minute;
    r["new_users_window"] = au.window == rate_window::fixed ? "fixed" : "sliding";
    r["session_duration_min"] = au.session_duration_s / 60.0;
    r["disable_session_renewal"] = au.disable_session_renewal;
    r["revoke_on_exit"] = au.revoke_on_exit;
    r["queueing_method"] = to_string(au.method);
    r["queue_all_until_s"] = au.queue_all_until_s;
    if (au.event_start_s) r["event_start_s"] = *au.event_start_s;
    r["shuffle_at_event_start"] = au.shuffle_at_event_start;
    r["visit"] = {{"requests", to_json(au.requests)}, {"think_s", to_json(au.think_s)}};
  }
  if (s.release.mode == release_mode::serving_counter) {
    const serving_counter_spec& sc = s.release.counter;
    r["inlet"] = sc.inlet == inlet_kind::periodic ? "periodic" : "max_size";
    if (sc.inlet == inlet_kind::periodic) {
      r["increment"] = sc.increment;
      r["inlet_interval_s"] = s.release.interval.seconds();
      r["start_s"] = sc.start_s;
      if (sc.end_s) r["end_s"] = *sc.end_s;
      if (sc.alarm_rt_ms) r["alarm_rt_ms"] = *sc.alarm_rt_ms;
      if (sc.alarm_error_rate) r["alarm_error_rate"] = *sc.alarm_error_rate;
    } else {
      r["max_size"] = sc.max_size;
    }
  }
  const selection_spec& sel = s.release.selection;
  if ((s.release.mode == release_mode::tick || s.release.mode == release_mode::concurrency ||
       s.release.mode == release_mode::active_users) &&
      (s.release.mode != release_mode::active_users ||
       s.release.active.method != queueing_method::random)) {
    json sj{{"kind", to_string(sel.kind)}};
    selection_policy_of(sel.kind).write(sel, s.class_names(), sj);
    r["selection"] = sj;
  }
  const auto& c = s.release.controller;
  if (c.kind == controller_kind::tiered)
    r["controller"] = {
        {"kind", "tiered"},       {"tiers_ms", c.tiers_ms},       {"factors", c.factors},
        {"max_step", c.max_step}, {"hold_rounds", c.hold_rounds}, {"floor", c.floor}};
  if (c.kind == controller_kind::window)
    r["controller"] = {{"kind", "window"},   {"every_s", c.every_s}, {"window_s", c.window_s},
                       {"low_ms", c.low_ms}, {"high_ms", c.high_ms}, {"up", c.up},
                       {"down", c.down},     {"floor", c.floor},     {"ceiling", c.ceiling}};
  j["release"] = r;
  if (s.admission) {
    json adm{{"stock", s.admission->stock},
             {"order_failure_probability", s.admission->order_failure_probability},
             {"cancel_probability", s.admission->cancel_probability}};
    if (s.admission->cancel_probability > 0)
      adm["cancel_delay_s"] = to_json(s.admission->cancel_delay_s);
    j["admission"] = adm;
  }
  json run{{"max_events", s.run.max_events}, {"sample_interval_s", s.run.sample_interval_s}};
  if (s.run.horizon_s) run["horizon_s"] = *s.run.horizon_s;
  if (s.run.warmup == warmup_kind::time) run["warmup_s"] = s.run.warmup_s;
  if (s.run.warmup == warmup_kind::customers) run["warmup_customers"] = s.run.warmup_customers;
  if (s.run.warmup == warmup_kind::mser5) run["warmup"] = "mser5";
  j["run"] = run;
  if (s.sla) {
    json targets = json::array();
    for (const auto& t : s.sla->targets) {
      json tj{{"class", t.user_class < 0 ? std::string("all")
                                         : s.classes[static_cast<std::size_t>(t.user_class)].name},
              {"metric", to_string(t.metric)}};
      if (t.max) tj["max"] = *t.max;
      if (t.min) tj["min"] = *t.min;
      targets.push_back(tj);
    }
    j["sla"] = {{"confidence", s.sla->confidence},
                {"replications", s.sla->replications},
                {"targets", targets}};
  }
  // Written only when not the default, so results of scenarios without it keep their bytes.
  if (s.redis.tokens == token_format::signed_hmac) j["redis"] = {{"tokens", "signed"}};
  return j;
}

const char* to_string(ordering o) {
  switch (o) {
    case ordering::fifo:
      return "fifo";
    case ordering::offset:
      return "offset";
    case ordering::level:
      return "level";
  }
  return "offset";
}

const char* to_string(time_unit u) {
  switch (u) {
    case time_unit::s:
      return "s";
    case time_unit::ms:
      return "ms";
    case time_unit::us:
      return "us";
    case time_unit::min:
      return "min";
  }
  return "ms";
}

const char* to_string(release_mode m) {
  switch (m) {
    case release_mode::tick:
      return "tick";
    case release_mode::concurrency:
      return "concurrency";
    case release_mode::active_users:
      return "active_users";
    case release_mode::serving_counter:
      return "serving_counter";
  }
  return "tick";
}

const char* to_string(queueing_method m) {
  switch (m) {
    case queueing_method::fifo:
      return "fifo";
    case queueing_method::random:
      return "random";
    case queueing_method::passthrough:
      return "passthrough";
    case queueing_method::reject:
      return "reject";
  }
  return "fifo";
}

}  // namespace waitroom::models
