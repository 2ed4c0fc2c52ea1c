#include "redis/mirror.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include <fmt/format.h>

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
  if (!opt_.lottery && (opt_.releasers > 1 || !opt_.atomic))
    pool_ = std::make_unique<releaser_pool>(c_.url(), keys_, opt_.releasers, opt_.atomic);
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
    if (e.kind == op::release) --releases_in_flight_;
    check(r, e);
  }
}

void redis_mirror::check(const reply& r, const expectation& e) {
  static constexpr const char* names[] = {
      "entry (ZADD)", "abandonment (ZREM)", "move", "release", "draw", "ZRANK"};
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
  flush_release(list);
  --expected_size(list);
  push({opt_.lottery ? "SREM" : "ZREM", set_key(list), member(token)},
       {op::remove, list, now_ns, 1, {token}});
}

void redis_mirror::move(std::uint32_t from, std::uint32_t to, std::uint64_t token, double score,
                        std::int64_t now_ns) {
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
  ++stats_.releases;
  stats_.released_members += tokens.size();
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
}

void redis_mirror::ranked(std::uint32_t list, std::uint64_t token, std::uint64_t rank,
                          std::int64_t now_ns) {
  flush_release(list);
  ++stats_.ranks_checked;
  push({"ZRANK", set_key(list), member(token)},
       {op::rank, list, now_ns, static_cast<std::int64_t>(rank), {token}});
}

void redis_mirror::round_end(std::int64_t now_ns) {
  last_now_ns_ = now_ns;
  flush_releases();
  drain();
  if (recheck_) {
    recheck_ = false;
    check_state(now_ns);
  }
}

void redis_mirror::check_state(std::int64_t now_ns) {
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
}

void redis_mirror::finish(std::int64_t now_ns) {
  check_state(now_ns);
}

}  // namespace waitroom::redis
