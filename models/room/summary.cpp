#include "models/room/summary.hpp"

namespace waitroom::models {

namespace {
void compact(wait_stats& w) {
  w.wait_ns.compact();
}

template <class T>
void drop(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

std::size_t heap(const wait_stats& w) {
  return w.wait_ns.memory_bytes();
}
}  // namespace

void keep_summary_only(room_result& r) {
  for (auto& w : r.by_class) compact(w);
  compact(r.overall);
  if (r.compensation) compact(r.compensation->credited);
  if (r.backend) {
    r.backend->rt_ns.compact();
    drop(r.backend->t_s);
    drop(r.backend->rate_per_tick);
    drop(r.backend->rt_ms);
    drop(r.backend->windows);
  }
  if (r.polling)
    for (auto& c : r.polling->by_class) {
      for (auto& e : c.eta) e.abs_error_ns.compact();
      drop(c.trails);  // a single run's chart of a few users' shown rank
    }
  if (r.admission) drop(r.admission->over_time);  // a single run's stock chart
  drop(r.samples);  // a single run's time series (--series, the JSON of `run`)
}

std::size_t summary_heap_bytes(const room_result& r) {
  std::size_t n = 0;
  for (const auto& w : r.by_class) n += heap(w) + sizeof(w);
  n += heap(r.overall);
  if (r.compensation) n += heap(r.compensation->credited);
  if (r.backend) n += r.backend->rt_ns.memory_bytes();
  if (r.polling) {
    for (const auto& c : r.polling->by_class)
      for (const auto& e : c.eta) n += e.abs_error_ns.memory_bytes() + sizeof(e);
    const auto& s = r.polling->per_second;
    for (const auto* v : {&s.enter, &s.remove, &s.release, &s.waiting_polls, &s.lookups,
                          &s.discoveries, &s.post_release_polls, &s.uncached_discoveries})
      n += v->capacity() * sizeof(std::uint64_t);
  }
  for (const auto& c : r.class_names) n += c.capacity() + sizeof(c);
  for (const auto& l : r.list_names) n += l.capacity() + sizeof(l);
  n += r.by_list.capacity() * sizeof(list_stats);
  return n;
}

}  // namespace waitroom::models
