// The one writer: a scenario back to its canonical JSON (the "effective scenario" echoed in
// every result). Names come from the tables in names.hpp.
#include <cmath>

#include "models/release/selection.hpp"
#include "models/scenario/names.hpp"
#include "models/scenario/scenario.hpp"
#include "models/scenario/sections.hpp"

namespace waitroom::models {

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
  j["arrivals"] = s.arrivals.to_json();
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
  // A lottery draws from everyone and refuses /queue/lists: leave out its implicit list.
  if (s.release.selection.kind != selection_kind::lottery) j["queue"]["lists"] = lists;
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
           {"discipline", name_of(s.backend->processor_sharing ? backend_discipline::ps
                                                               : backend_discipline::fifo)}};
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
    r["new_users_window"] = name_of(au.window);
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
    r["inlet"] = name_of(sc.inlet);
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
    r["controller"] = {{"kind", name_of(c.kind)},      {"tiers_ms", c.tiers_ms},
                       {"factors", c.factors},         {"max_step", c.max_step},
                       {"hold_rounds", c.hold_rounds}, {"floor", c.floor}};
  if (c.kind == controller_kind::window)
    r["controller"] = {{"kind", name_of(c.kind)}, {"every_s", c.every_s}, {"window_s", c.window_s},
                       {"low_ms", c.low_ms},      {"high_ms", c.high_ms}, {"up", c.up},
                       {"down", c.down},          {"floor", c.floor},     {"ceiling", c.ceiling}};
  // Written only when not the default, so results of scenarios without them keep their bytes.
  if (s.release.consumers != 1) r["consumers"] = s.release.consumers;
  if (!s.release.atomic) r["atomic"] = false;
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
  if (s.redis.tokens == token_format::signed_hmac)
    j["redis"] = {{"tokens", name_of(s.redis.tokens)}};
  return j;
}

json to_json(const sim::distribution& d) {
  return write_distribution(d);
}

const char* to_string(ordering o) {
  return name_of(o);
}
const char* to_string(time_unit u) {
  return name_of(u);
}
const char* to_string(release_mode m) {
  return name_of(m);
}
const char* to_string(queueing_method m) {
  return name_of(m);
}

}  // namespace waitroom::models
