// /polling: the waiting page's status polls, suggested intervals and ETA settings.
#include "models/scenario/sections.hpp"

#include <fmt/format.h>

namespace waitroom::models::section {

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

}  // namespace waitroom::models::section
