#include "redis/mirror.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "models/release/selection.hpp"
#include "redis/scripts.hpp"

namespace waitroom::redis {

std::string hex_token(std::uint64_t token) {
  return fmt::format("{:016x}", token);
}

std::string new_run_id() {
  std::uint64_t v = 0;
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  bool ok = fd >= 0 && ::read(fd, &v, sizeof v) == static_cast<ssize_t>(sizeof v);
  if (fd >= 0) ::close(fd);
  if (!ok)  // no /dev/urandom: the clock and the pid still tell concurrent runs apart
    v = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
        (static_cast<std::uint64_t>(::getpid()) << 40);
  return hex_token(v);
}

std::uint64_t delete_keys(connection& c, const key_layout& keys) {
  std::uint64_t n = 0;
  std::string cursor = "0";
  do {
    reply r = c.call({"SCAN", cursor, "MATCH", keys.prefix() + "*", "COUNT", "1000"});
    cursor = r.elements.at(0).str;
    std::vector<std::string> del{"UNLINK"};
    for (const auto& k : r.elements.at(1).elements) del.push_back(k.str);
    if (del.size() > 1) n += static_cast<std::uint64_t>(c.call(std::span(del)).integer);
  } while (cursor != "0");
  return n;
}

namespace {

std::string seconds(std::int64_t ns) {
  return fmt::format("{}.{:09d} s", ns / 1'000'000'000, ns % 1'000'000'000);
}

// A stats counter as HMGET or HGETALL returns it (nil: never counted, 0); -1 for anything
// that is not a count (a field overwritten by another client).
std::int64_t counter_value(const reply* v) {
  if (v == nullptr) return -1;
  if (v->type == reply::kind::nil) return 0;
  std::int64_t x = -1;
  const char* end = v->str.data() + v->str.size();
  auto r = std::from_chars(v->str.data(), end, x);
  return r.ec == std::errc() && r.ptr == end && x >= 0 ? x : -1;
}

std::string join_around(const std::vector<std::string>& v, std::size_t at) {
  constexpr std::size_t before = 5, shown = 20;
  std::size_t lo = at > before ? at - before : 0;
  std::size_t hi = std::min(v.size(), lo + shown);
  std::string s = "[";
  if (lo > 0) s += fmt::format("... {} before, ", lo);
  for (std::size_t i = lo; i < hi; ++i) s += (i > lo ? ", " : "") + v[i];
  if (hi < v.size()) s += fmt::format(", ... {} more", v.size() - hi);
  return s + "]";
}

}  // namespace

std::string parity_message(std::int64_t now_ns, std::uint32_t list, std::string_view what,
                           const std::vector<std::string>& model,
                           const std::vector<std::string>& redis) {
  std::size_t at = 0;
  while (at < model.size() && at < redis.size() && model[at] == redis[at]) ++at;
  return fmt::format(
      "Redis parity lost at {} on list {}: {} differs at position {} (model {} members, Redis "
      "{})\n  model: {}\n  redis: {}",
      seconds(now_ns), list, what, at, model.size(), redis.size(), join_around(model, at),
      join_around(redis, at));
}

redis_mirror::redis_mirror(connection& c, key_layout keys, mirror_options opt)
    : c_(c), keys_(std::move(keys)), opt_(opt) {
  release_script_ = c_.add_script("release", scripts::release);
  draw_script_ = c_.add_script("draw", scripts::draw);
  move_script_ = c_.add_script("move", scripts::move);
  c_.on_reconnect([this] { recheck_ = true; });
  stats_.releasers = std::max(1u, opt_.releasers);
  stats_.atomic = opt_.atomic;
  if (!opt_.lottery && (opt_.releasers > 1 || !opt_.atomic)) {
    // The releasers reconnect as c_ does; after one did, the state is compared as after c_'s.
    pool_ = std::make_unique<releaser_pool>(c_.url(), keys_, opt_.releasers, opt_.atomic,
                                            c_.options(), opt_.releasers_from);
    pool_->on_reconnect([this] { recheck_ = true; });
  }
}

mirror_stats redis_mirror::stats() const {
  mirror_stats s = stats_;
  if (pool_) s.releaser_commands = pool_->stats();
  return s;
}

std::string redis_mirror::member(std::uint64_t token) const {
  return opt_.signer != nullptr ? opt_.signer->sign(token) : hex_token(token);
}

std::int64_t& redis_mirror::expected_size(std::uint32_t list) {
  if (sizes_.size() <= list) sizes_.resize(list + 1, 0);
  return sizes_[list];
}

void redis_mirror::count_released(std::uint32_t list, std::uint64_t n) {
  if (counted_.size() <= list) counted_.resize(list + 1, 0);
  counted_[list] += static_cast<std::int64_t>(n);
  counters_due_ = true;
}

void redis_mirror::check_counters(std::int64_t now_ns) {
  counters_due_ = false;
  ++stats_.counter_checks;
  std::vector<std::string> cmd{"HMGET", keys_.stats()};
  for (std::uint32_t l = 0; l < counted_.size(); ++l) cmd.push_back(fmt::format("released:{}", l));
  expectation e{op::counters, 0, now_ns, 0, {}};
  e.counts = counted_;
  push(std::move(cmd), std::move(e));
}

void redis_mirror::push(std::vector<std::string> cmd, expectation e) {
  last_now_ns_ = e.now_ns;
  c_.append(std::move(cmd));
  expect_.push_back(std::move(e));
  if (expect_.size() >= opt_.pipeline_depth) drain();
}

void redis_mirror::drain() {
  while (!expect_.empty()) {
    reply r = c_.read();
    expectation e = std::move(expect_.front());
    expect_.pop_front();
    if (e.kind == op::release || e.kind == op::choose) --releases_in_flight_;
    check(r, e);
  }
}

void redis_mirror::check(const reply& r, const expectation& e) {
  static constexpr const char* names[] = {"entry (ZADD)",
                                          "abandonment (ZREM)",
                                          "move",
                                          "release",
                                          "draw",
                                          "ZRANK",
                                          "release (choose)",
                                          "counters (HMGET)",
                                          "size (ZCARD/SCARD)"};
  const char* name = names[static_cast<int>(e.kind)];
  if (r.type == reply::kind::error) {
    auto kind = classify_error_reply(r.str);
    std::string what = fmt::format("Redis at {}: {} on list {} at {}: {}", c_.url().describe(),
                                   name, e.list, seconds(e.now_ns), r.str);
    if (kind == error_kind::oom) what += " (maxmemory reached)";
    if (kind == error_kind::wrong_type)
      what += fmt::format(" (key {} already holds another type)", set_key(e.list));
    throw redis_error(kind, what);
  }
  ++stats_.replies_checked;
  if (e.kind == op::choose) {
    check_choice(r, e);
    return;
  }
  if (e.kind == op::counters) {
    // Sent again after a reconnect it may see later releases too: the state check after the
    // reconnect compares every counter.
    if (r.replayed) return;
    for (std::uint32_t l = 0; l < e.counts.size(); ++l) {
      const reply* v =
          r.type == reply::kind::array && l < r.elements.size() ? &r.elements[l] : nullptr;
      const std::int64_t got = counter_value(v);
      if (got != e.counts[l])
        throw redis_error(
            error_kind::parity,
            fmt::format("Redis parity lost at {} on list {}: the stats counter released:{} is "
                        "{}, the model's releases from the list add up to {} (changed by "
                        "another client, or Redis lost writes)",
                        seconds(e.now_ns), l, l,
                        got >= 0 ? std::to_string(got) : "'" + (v ? v->str : "") + "'",
                        e.counts[l]));
    }
    return;
  }
  if (e.kind == op::size) {
    // Sent again after a reconnect it may see other sizes; the state check after the
    // reconnect compares every key.
    if (r.replayed) return;
    if (r.type != reply::kind::integer || r.integer != e.value)
      throw redis_error(
          error_kind::parity,
          fmt::format(
              "Redis parity lost at {} on list {}: {} of {} is {}, the model counts {} "
              "waiting (changed by another client, or Redis lost writes)",
              seconds(e.now_ns), e.list, opt_.lottery ? "SCARD" : "ZCARD", set_key(e.list),
              r.type == reply::kind::integer ? std::to_string(r.integer) : "'" + r.str + "'",
              e.value));
    return;
  }
  if (e.kind == op::release) {
    bool same = r.type == reply::kind::array && r.elements.size() == e.members.size();
    for (std::size_t i = 0; same && i < e.members.size(); ++i)
      same = r.elements[i].str == member(e.members[i]);
    if (!same) {
      std::vector<std::string> model, got;
      for (auto t : e.members) model.push_back(member(t));
      for (const auto& x : r.elements) got.push_back(x.str);
      throw redis_error(error_kind::parity,
                        parity_message(e.now_ns, e.list, "the released members", model, got));
    }
    return;
  }
  // A command replayed after a reconnect may have run before the break: it then finds its
  // work done (0), which is no divergence; the state check after the reconnect decides.
  if (r.type == reply::kind::integer && r.replayed && e.kind != op::rank && r.integer == 0) return;
  bool ok = e.kind == op::rank ? r.type == reply::kind::integer && r.integer == e.value
                               : r.type == reply::kind::integer && r.integer == 1;
  if (!ok) {
    std::string got = r.type == reply::kind::integer ? std::to_string(r.integer)
                      : r.type == reply::kind::nil   ? std::string("nil")
                                                     : "'" + r.str + "'";
    std::string want = e.kind == op::rank ? std::to_string(e.value) : std::string("1");
    throw redis_error(
        error_kind::parity,
        fmt::format("Redis parity lost at {} on list {}: {} of {} returned {}, the model "
                    "expects {}",
                    seconds(e.now_ns), e.list, name,
                    e.members.empty() ? std::string("?") : member(e.members.front()), got, want));
  }
}

void redis_mirror::enter(std::uint32_t list, std::uint64_t token, double score,
                         std::int64_t now_ns) {
  if (choose_) flush_choice();  // the choice depends on every list's size
  flush_release(list);
  ++expected_size(list);
  if (opt_.lottery) {
    push({"SADD", set_key(list), member(token)}, {op::enter, list, now_ns, 1, {token}});
  } else {
    push({"ZADD", set_key(list), fmt::format("{}", score), member(token)},
         {op::enter, list, now_ns, 1, {token}});
  }
}

void redis_mirror::remove(std::uint32_t list, std::uint64_t token, std::int64_t now_ns) {
  if (choose_) flush_choice();  // the choice depends on every list's size
  flush_release(list);
  --expected_size(list);
  push({opt_.lottery ? "SREM" : "ZREM", set_key(list), member(token)},
       {op::remove, list, now_ns, 1, {token}});
}

void redis_mirror::move(std::uint32_t from, std::uint32_t to, std::uint64_t token, double score,
                        std::int64_t now_ns) {
  if (choose_) flush_choice();  // the choice depends on every list's size
  flush_release(from);
  flush_release(to);
  --expected_size(from);
  ++expected_size(to);
  std::vector<std::string> keys{set_key(from), set_key(to)};
  std::vector<std::string> args{fmt::format("{}", score), member(token)};
  push(c_.evalsha_args(move_script_, keys, args), {op::move, from, now_ns, 1, {token}});
}

void redis_mirror::released(std::uint32_t list, std::span<const std::uint64_t> tokens,
                            std::int64_t now_ns) {
  expected_size(list) -= static_cast<std::int64_t>(tokens.size());
  released_total_ += static_cast<std::int64_t>(tokens.size());
  stats_.released_members += tokens.size();
  if (choose_) {
    auto& ch = *choose_;
    const std::uint64_t epoch = ch.selector->weight_changes();
    if (ch.open && epoch != ch.epoch) flush_choice();  // new weights: a new call
    if (!ch.open) {
      ch.open = true;
      ch.now_ns = now_ns;
      ch.epoch = epoch;
    }
    auto& b = ch.batch;
    if (b.members.size() < ch.lists) b.members.resize(ch.lists);
    b.members.at(list).insert(b.members[list].end(), tokens.begin(), tokens.end());
    b.order.insert(b.order.end(), tokens.size(), list);
    ch.credit_after = ch.selector->credit();
    return;
  }
  ++stats_.releases;
  if (pool_) {
    if (gathered_.size() <= list) gathered_.resize(list + 1);
    auto& g = gathered_[list];
    if (g.tokens.empty()) g.now_ns = now_ns;
    g.tokens.insert(g.tokens.end(), tokens.begin(), tokens.end());
    return;
  }
  // The release log keeps the last release_log_window releases: no more may be in flight.
  if (releases_in_flight_ + 1 >= release_log_window) drain();
  ++releases_in_flight_;
  ++release_seq_;
  std::vector<std::string> keys{set_key(list), keys_.released(), keys_.stats(),
                                keys_.release_log(0)};
  std::vector<std::string> args{
      std::to_string(tokens.size()), fmt::format("released:{}", list), std::to_string(release_seq_),
      release_seq_ > release_log_window ? std::to_string(release_seq_ - release_log_window)
                                        : std::string()};
  push(c_.evalsha_args(release_script_, keys, args),
       {op::release, list, now_ns, 0, std::vector<std::uint64_t>(tokens.begin(), tokens.end())});
  count_released(list, tokens.size());
}

// The model's release split among the releasers, all at once. With the script they must
// together hand out exactly the model's members, each a consecutive run of the model's order,
// none twice. Without it (ZRANGE, then ZREM) releasers that read the same head hand out the
// same users twice and leave others behind: those are counted (duplicated, lost), and the
// members left behind are then released here so Redis stays in step with the model and the
// rest of the run is still checked.
void redis_mirror::release_concurrently(std::uint32_t list, std::span<const std::uint64_t> tokens,
                                        std::int64_t now_ns) {
  drain();  // every entry before this release has run
  if (tokens.empty()) return;
  std::unordered_map<std::string, std::size_t> at;
  std::vector<std::string> model;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    model.push_back(member(tokens[i]));
    at.emplace(model.back(), i);
  }
  ++stats_.rounds;
  auto parts = split_release(tokens.size(), pool_->size());
  auto got = pool_->release(set_key(list), list, parts);
  std::vector<std::uint32_t> times(tokens.size(), 0);
  std::uint64_t handed = 0;
  for (std::size_t r = 0; r < got.size(); ++r) {
    if (parts[r] == 0) continue;  // this releaser had no share (fewer members than releasers)
    ++stats_.releaser_calls;
    ++stats_.replies_checked;
    for (std::size_t j = 0; j < got[r].size(); ++j) {
      auto it = at.find(got[r][j]);
      bool consecutive = it != at.end() && (j == 0 || it->second == at.at(got[r][j - 1]) + 1);
      if (it == at.end() || (pool_->atomic() && (!consecutive || times[it->second] > 0)))
        throw redis_error(
            error_kind::parity,
            parity_message(
                now_ns, list,
                fmt::format("releaser {} of {} ({})", r + 1, got.size(),
                            it == at.end()          ? "a member the model did not release"
                            : times[it->second] > 0 ? "a member another releaser also got"
                                                    : "not a consecutive run of the model's order"),
                model, got[r]));
      ++times[it->second];
      ++handed;
    }
  }
  std::uint64_t distinct = static_cast<std::uint64_t>(
      std::count_if(times.begin(), times.end(), [](auto t) { return t > 0; }));
  stats_.handed_out += handed;
  stats_.duplicated += handed - distinct;
  stats_.lost += tokens.size() - distinct;
  if (pool_->atomic()) count_released(list, distinct);  // the script counts what it takes
  if (distinct == tokens.size()) return;
  if (pool_->atomic())  // the script cannot leave a member behind: Redis differs from the model
    throw redis_error(error_kind::parity,
                      parity_message(now_ns, list, "the releasers' members together", model, [&] {
                        std::vector<std::string> all;
                        for (const auto& g : got) all.insert(all.end(), g.begin(), g.end());
                        return all;
                      }()));
  std::vector<std::string> zrem{"ZREM", set_key(list)}, sadd{"SADD", keys_.released()};
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (times[i] == 0) {
      zrem.push_back(model[i]);
      sadd.push_back(model[i]);
    }
  auto want = static_cast<long long>(zrem.size() - 2);
  for (auto* cmd : {&zrem, &sadd}) {
    reply r = c_.call(std::span<const std::string>(*cmd), set_key(list));
    if (r.integer != want)
      throw redis_error(error_kind::parity,
                        fmt::format("Redis parity lost at {} on list {}: {} of the {} members "
                                    "no releaser got returned {}, the model expects {}",
                                    seconds(now_ns), list, (*cmd)[0], want, r.integer, want));
  }
}

void redis_mirror::flush_release(std::uint32_t list) {
  if (list >= gathered_.size() || gathered_[list].tokens.empty()) return;
  auto g = std::move(gathered_[list]);
  gathered_[list] = {};
  release_concurrently(list, g.tokens, g.now_ns);
}

void redis_mirror::flush_releases() {
  for (std::uint32_t l = 0; l < gathered_.size(); ++l) flush_release(l);
}

void redis_mirror::drawn(std::uint32_t set, std::uint64_t token, std::int64_t now_ns) {
  --expected_size(set);
  ++released_total_;
  ++stats_.draws;
  ++stats_.released_members;
  std::vector<std::string> keys{set_key(set), keys_.released(), keys_.stats()};
  std::vector<std::string> args{member(token), fmt::format("released:{}", set)};
  push(c_.evalsha_args(draw_script_, keys, args), {op::draw, set, now_ns, 1, {token}});
  count_released(set, 1);
}

void redis_mirror::ranked(std::uint32_t list, std::uint64_t token, std::uint64_t rank,
                          std::int64_t now_ns) {
  if (choose_) flush_choice();  // the choice depends on every list's size
  flush_release(list);
  ++stats_.ranks_checked;
  push({"ZRANK", set_key(list), member(token)},
       {op::rank, list, now_ns, static_cast<std::int64_t>(rank), {token}});
}

void redis_mirror::counted(std::uint32_t list, std::uint64_t size, std::int64_t now_ns) {
  if (choose_) flush_choice();  // the choice changes every list's size
  flush_release(list);
  ++stats_.sizes_checked;
  push({opt_.lottery ? "SCARD" : "ZCARD", set_key(list)},
       {op::size, list, now_ns, static_cast<std::int64_t>(size), {}});
}

void redis_mirror::round_end(std::int64_t now_ns) {
  last_now_ns_ = now_ns;
  if (choose_) flush_choice();
  flush_releases();
  if (counters_due_) check_counters(now_ns);
  drain();
  if (recheck_) {
    recheck_ = false;
    check_state(now_ns);
  }
}

void redis_mirror::check_state(std::int64_t now_ns) {
  if (choose_) flush_choice();
  flush_releases();
  drain();
  ++stats_.state_checks;
  auto compare = [&](const std::string& key, const char* cmd, std::int64_t want,
                     std::uint32_t list) {
    reply r = c_.call({cmd, key}, key);
    if (r.integer != want)
      throw redis_error(error_kind::parity,
                        fmt::format("Redis parity lost at {} on list {}: {} {} is {}, the model "
                                    "holds {} ({} {})",
                                    seconds(now_ns), list, cmd, key, r.integer, want,
                                    r.integer > want ? "duplicated" : "lost",
                                    r.integer > want ? r.integer - want : want - r.integer));
  };
  for (std::uint32_t l = 0; l < sizes_.size(); ++l)
    compare(set_key(l), opt_.lottery ? "SCARD" : "ZCARD", sizes_[l], l);
  compare(keys_.released(), "SCARD", released_total_, 0);
  // Every counter in the stats hash, a field the model never counted under included.
  counters_due_ = false;
  ++stats_.counter_checks;
  reply all = c_.call({"HGETALL", keys_.stats()}, keys_.stats());
  std::vector<std::int64_t> got(counted_.size(), 0);
  for (std::size_t i = 0; i + 1 < all.elements.size(); i += 2) {
    const std::string& field = all.elements[i].str;
    std::uint32_t l = 0;
    bool counted = false;
    if (field.starts_with("released:")) {
      const char* end = field.data() + field.size();
      auto r = std::from_chars(field.data() + 9, end, l);
      counted = r.ec == std::errc() && r.ptr == end && l < got.size();
    }
    const std::int64_t v = counter_value(&all.elements[i + 1]);
    if (counted) {
      got[l] = v;
    } else if (v != 0) {
      throw redis_error(
          error_kind::parity,
          fmt::format("Redis parity lost at {}: the stats hash {} has {} = {}, a "
                      "counter the model's releases never made",
                      seconds(now_ns), keys_.stats(), field, all.elements[i + 1].str));
    }
  }
  for (std::uint32_t l = 0; l < got.size(); ++l)
    if (got[l] != counted_[l])
      throw redis_error(error_kind::parity,
                        fmt::format("Redis parity lost at {} on list {}: the stats counter "
                                    "released:{} is {}, the model's releases from the list add "
                                    "up to {}",
                                    seconds(now_ns), l, l, got[l], counted_[l]));
}

bool redis_mirror::can_choose(const models::selection_spec& spec, std::uint32_t lists,
                              unsigned releasers, bool atomic) {
  const bool kind = !models::selection_policy_of(spec.kind).redis_choose.empty();
  return kind && lists > 1 && releasers <= 1 && atomic;
}

void redis_mirror::choose_lists(const models::selection_spec& spec, std::uint32_t lists,
                                const models::list_selector& selector, const sim::rng& stream,
                                std::function<std::uint64_t()> lost_units) {
  if (opt_.lottery || pool_ || !can_choose(spec, lists, opt_.releasers, opt_.atomic))
    throw std::logic_error(
        "redis_mirror::choose_lists: only a policy with a Redis choose script, over several "
        "lists, with one atomic releaser");
  choose_ = std::make_unique<chooser>(chooser{.kind = spec.kind,
                                              .work_conserving = spec.work_conserving,
                                              .start_probabilities = spec.start_probabilities,
                                              .lists = lists,
                                              .selector = &selector,
                                              .model_stream = &stream,
                                              .draws = stream,
                                              .lost_units = std::move(lost_units),
                                              .credit_after = {},
                                              .batch = {}});
  choose_->lost_sent = choose_->lost_units();
  choose_->script = c_.add_script("choose", scripts::choose);
}

// The gathered release as one call of the choose script: N units (the model's releases, plus
// for ratio without work conservation the units it lost to an empty list's share), the
// policy's numbers, and for probabilistic the model's draws for those N picks.
void redis_mirror::flush_choice() {
  auto& ch = *choose_;
  const std::uint64_t lost_now = ch.lost_units();
  // With work conservation a unit is lost only when every list with a weight is empty: it
  // changes no credit and comes after the gathered ones, so Redis need not make it.
  const bool counts_lost = ch.kind == models::selection_kind::ratio && !ch.work_conserving;
  const std::uint64_t lost = counts_lost ? lost_now - ch.lost_sent : 0;
  ch.lost_sent = lost_now;
  if (!ch.open && lost == 0) return;
  if (!ch.open) {  // a round whose every unit was lost: the credit still moved
    ch.now_ns = last_now_ns_;
    ch.epoch = ch.selector->weight_changes();
  }
  auto c = std::make_shared<choice>(std::move(ch.batch));
  ch.batch = {};
  ch.open = false;
  c->members.resize(ch.lists);
  c->lost = lost;
  const std::uint64_t n = c->order.size() + lost;
  const std::string_view policy = models::selection_policy_of(ch.kind).redis_choose;
  if (releases_in_flight_ + 1 >= release_log_window) drain();
  ++releases_in_flight_;
  ++release_seq_;
  ++stats_.releases;
  ++stats_.chosen_releases;
  stats_.chosen_lost += lost;
  std::vector<std::string> keys;
  for (std::uint32_t l = 0; l < ch.lists; ++l) keys.push_back(keys_.list(l));
  keys.push_back(keys_.released());
  keys.push_back(keys_.stats());
  keys.push_back(keys_.release_log(0));
  keys.push_back(keys_.selection());
  std::vector<std::string> args{
      std::to_string(n), std::string(policy), std::to_string(release_seq_),
      release_seq_ > release_log_window ? std::to_string(release_seq_ - release_log_window)
                                        : std::string(),
      std::to_string(ch.lists)};
  if (ch.kind == models::selection_kind::ratio) {
    args.push_back(ch.work_conserving ? "1" : "0");
    args.push_back(std::to_string(ch.epoch));
    for (double w : ch.selector->weights()) args.push_back(fmt::format("{}", w));
    // The model's credit after these units: now, unless new weights have reset it since
    // (then as it was at the last unit; a later unit would have been lost, moving nothing).
    c->credit = ch.selector->weight_changes() == ch.epoch ? ch.selector->credit() : ch.credit_after;
    c->check_credit = true;
  } else if (ch.kind == models::selection_kind::probabilistic) {
    for (double p : ch.start_probabilities) args.push_back(fmt::format("{}", p));
    for (std::uint64_t k = 0; k < n; ++k) args.push_back(fmt::format("{}", ch.draws.uniform01()));
    // Each pick draws once, so the copy is now where the model's stream is.
    if (!(ch.draws == *ch.model_stream))
      throw std::logic_error(
          "redis_mirror: the model's selection stream moved other than by one draw per "
          "released unit");
  }
  for (std::uint32_t l = 0; l < ch.lists; ++l)
    if (!c->members[l].empty()) count_released(l, c->members[l].size());
  push(c_.evalsha_args(ch.script, keys, args), {op::choose, 0, ch.now_ns, 0, {}, std::move(c)});
}

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  std::size_t from = 0;
  for (;;) {
    const auto at = s.find(sep, from);
    out.push_back(s.substr(from, at == std::string::npos ? std::string::npos : at - from));
    if (at == std::string::npos) return out;
    from = at + 1;
  }
}

}  // namespace

void redis_mirror::check_choice(const reply& r, const expectation& e) {
  const choice& c = *e.chosen;
  const std::size_t lists = c.members.size();
  if (r.type != reply::kind::array || r.elements.size() != 3 + lists ||
      r.elements[1].type != reply::kind::integer)
    throw redis_error(error_kind::parity,
                      fmt::format("Redis parity lost at {}: the choose script returned {} "
                                  "elements, the model expects {} (order, lost, credit and {} "
                                  "lists)",
                                  seconds(e.now_ns), r.elements.size(), 3 + lists, lists));
  for (std::uint32_t l = 0; l < lists; ++l) {
    const auto& got = r.elements[3 + l].elements;
    const auto& want = c.members[l];
    bool same = got.size() == want.size();
    for (std::size_t i = 0; same && i < want.size(); ++i) same = got[i].str == member(want[i]);
    if (!same) {
      std::vector<std::string> model, redis;
      for (auto t : want) model.push_back(member(t));
      for (const auto& x : got) redis.push_back(x.str);
      throw redis_error(error_kind::parity,
                        parity_message(e.now_ns, l, "the released members", model, redis));
    }
  }
  std::vector<std::string> order;
  for (auto l : c.order) order.push_back(std::to_string(l));
  const auto got_order = split(r.elements[0].str, ',');
  if (got_order != order) {
    std::size_t at = 0;
    while (at < order.size() && at < got_order.size() && order[at] == got_order[at]) ++at;
    throw redis_error(
        error_kind::parity,
        parity_message(e.now_ns, at < c.order.size() ? c.order[at] : 0,
                       "the list each unit came from (the order of lists)", order, got_order));
  }
  if (static_cast<std::uint64_t>(r.elements[1].integer) != c.lost)
    throw redis_error(error_kind::parity,
                      fmt::format("Redis parity lost at {}: the choose script lost {} units to "
                                  "an empty list's share, the model {}",
                                  seconds(e.now_ns), r.elements[1].integer, c.lost));
  if (!c.check_credit) return;
  const auto credit = split(r.elements[2].str, ',');
  bool same = credit.size() == c.credit.size();
  for (std::size_t i = 0; same && i < credit.size(); ++i)
    same = std::strtod(credit[i].c_str(), nullptr) == c.credit[i];
  if (!same) {
    std::vector<std::string> model;
    for (double x : c.credit) model.push_back(fmt::format("{}", x));
    std::size_t at = 0;
    while (at < credit.size() && at < c.credit.size() &&
           std::strtod(credit[at].c_str(), nullptr) == c.credit[at])
      ++at;
    throw redis_error(error_kind::parity,
                      parity_message(e.now_ns, static_cast<std::uint32_t>(at),
                                     "the ratio's credit after the release", model, credit));
  }
}

void redis_mirror::finish(std::int64_t now_ns) {
  check_state(now_ns);
}

}  // namespace waitroom::redis
