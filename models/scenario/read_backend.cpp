// /backend (workers, service, capacity changes, reach and reclaim) and /admission (stock).
#include "models/scenario/names.hpp"
#include "models/scenario/sections.hpp"

#include <fmt/format.h>

namespace waitroom::models::section {

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
  b.processor_sharing = read_enum<backend_discipline>(*r, "discipline", backend_discipline::fifo) ==
                        backend_discipline::ps;
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
  if (r->has("timeout_s")) {
    b.timeout_s = r->number("timeout_s", std::nullopt, {0.0, max_seconds, true});
    refuse_below_clock_step(*r, "timeout_s", *b.timeout_s);
  }
  if (r->has("arrival_delay_s")) b.arrival_delay_s = read_distribution(*r, "arrival_delay_s");
  b.no_show_probability = r->number("no_show_probability", 0.0, {0.0, 1.0});
  b.reclaim_s = r->number("reclaim_s", 60.0, {0.0, max_seconds, true});
  refuse_below_clock_step(*r, "reclaim_s", b.reclaim_s);
  b.window_s = r->number("window_s", 10.0, {0.001, max_seconds});
  return b;
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

}  // namespace waitroom::models::section
