#pragma once
// A sorted set with Redis semantics (ZADD NX/XX/GT/LT/CH, ZREM, ZSCORE, ZRANK, ZREVRANK,
// ZCARD, ZCOUNT, ZRANGE, ZRANGEBYSCORE, ZPOPMIN) over an order_tree. The Store maps members
// to 32-bit ids and holds each member's score (Redis's dict); two stores exist:
// string_store for arbitrary byte strings, token_store for the simulator, whose members are
// user slots with 8-byte pseudo-random tokens computed, not stored.
#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/zset/order_tree.hpp"
#include "sim/chunked_vector.hpp"
#include "sim/random.hpp"

namespace waitroom::models {

// Redis's error replies become this exception.
class zset_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct zadd_options {
  bool nx = false;  // only add new members
  bool xx = false;  // only update existing members
  bool gt = false;  // update only when the new score is greater
  bool lt = false;  // update only when the new score is less
  bool ch = false;  // return changed (added + updated) rather than added
};

// A score bound as in ZCOUNT/ZRANGEBYSCORE: "(5" is {5, true}, "-inf" is {-inf, false}.
struct score_bound {
  double value;
  bool exclusive = false;
};

template <class Store>
class zset {
 public:
  using member_type = typename Store::member_type;
  using value_type = typename Store::value_type;

  template <class... Args>
  explicit zset(Args&&... args) : store_(std::forward<Args>(args)...), tree_(&store_) {}
  zset(const zset&) = delete;  // the tree points at the store
  zset& operator=(const zset&) = delete;

  // ZADD key [NX|XX] [GT|LT] [CH] score member
  std::int64_t zadd(double score, member_type m, const zadd_options& o = {}) {
    validate(o, score);
    auto id = store_.find(m);
    if (!id) {
      if (o.xx) return 0;
      std::uint32_t nid = store_.intern(m);
      store_.set_score(nid, score);
      tree_.insert(score, nid);
      return 1;
    }
    if (o.nx) return 0;
    double old = store_.score(*id);
    if ((o.gt && !(score > old)) || (o.lt && !(score < old)) || score == old) return 0;
    tree_.erase(old, *id);
    store_.set_score(*id, score);
    tree_.insert(score, *id);
    return o.ch ? 1 : 0;
  }

  // ZADD with several score-member pairs: validated as a whole first, like Redis.
  std::int64_t zadd(const std::vector<std::pair<double, member_type>>& items,
                    const zadd_options& o = {}) {
    for (const auto& it : items) validate(o, it.first);
    std::int64_t n = 0;
    for (const auto& it : items) n += zadd(it.first, it.second, o);
    return n;
  }

  // ZREM: 1 when removed, 0 when absent.
  std::int64_t zrem(member_type m) {
    auto id = store_.find(m);
    if (!id) return 0;
    tree_.erase(store_.score(*id), *id);
    store_.release(*id);
    return 1;
  }

  std::optional<double> zscore(member_type m) const {
    auto id = store_.find(m);
    if (!id) return std::nullopt;
    return store_.score(*id);
  }
  std::optional<std::uint64_t> zrank(member_type m) const {
    auto id = store_.find(m);
    if (!id) return std::nullopt;
    return tree_.rank(store_.score(*id), *id);
  }
  std::optional<std::uint64_t> zrevrank(member_type m) const {
    auto r = zrank(m);
    if (!r) return std::nullopt;
    return tree_.size() - 1 - *r;
  }
  std::uint64_t zcard() const { return tree_.size(); }

  std::uint64_t zcount(score_bound min, score_bound max) const {
    std::size_t lo = tree_.count_below(min.value, min.exclusive);
    std::size_t hi = tree_.count_below(max.value, !max.exclusive);
    return hi > lo ? hi - lo : 0;
  }

  // ZRANGE key start stop (by rank; negative indices count from the end).
  std::vector<std::pair<value_type, double>> zrange(std::int64_t start, std::int64_t stop) const {
    std::vector<std::pair<value_type, double>> out;
    auto n = static_cast<std::int64_t>(tree_.size());
    if (start < 0) start = std::max<std::int64_t>(n + start, 0);
    if (stop < 0) stop = n + stop;
    if (stop >= n) stop = n - 1;
    if (start > stop || start >= n) return out;
    tree_.for_range(static_cast<std::size_t>(start), static_cast<std::size_t>(stop) + 1,
                    [&](zentry e) { out.emplace_back(store_.value(e.id), e.score); });
    return out;
  }

  // ZRANGEBYSCORE key min max [LIMIT offset count]; count < 0 means all.
  std::vector<std::pair<value_type, double>> zrangebyscore(score_bound min, score_bound max,
                                                           std::int64_t offset = 0,
                                                           std::int64_t count = -1) const {
    std::vector<std::pair<value_type, double>> out;
    if (offset < 0) return out;  // Redis returns an empty reply for a negative offset
    std::size_t lo = tree_.count_below(min.value, min.exclusive);
    std::size_t hi = tree_.count_below(max.value, !max.exclusive);
    lo += static_cast<std::size_t>(offset);
    if (count >= 0) hi = std::min(hi, lo + static_cast<std::size_t>(count));
    if (lo >= hi) return out;
    tree_.for_range(lo, hi, [&](zentry e) { out.emplace_back(store_.value(e.id), e.score); });
    return out;
  }

  // ZPOPMIN key [count]: count must not be negative; 0 gives an empty reply.
  std::vector<std::pair<value_type, double>> zpopmin(std::int64_t count = 1) {
    if (count < 0) throw zset_error("ERR value is out of range, must be positive");
    std::vector<std::pair<value_type, double>> out;
    std::size_t n = std::min(static_cast<std::size_t>(count), tree_.size());
    tree_.pop_front(n, [&](zentry e) {
      out.emplace_back(store_.value(e.id), e.score);
      store_.release(e.id);
    });
    return out;
  }

  // The simulator's atomic "ZRANGE 0 N-1 + ZREM" step: the first n members leave the set,
  // and f(id, score) is called for each after it has left (f may forget the member).
  // Returns how many left.
  template <class F>
  std::size_t pop_min(std::size_t n, F&& f) {
    n = std::min(n, tree_.size());
    tree_.pop_front(n, [&](zentry e) {
      store_.release(e.id);
      f(e.id, e.score);
    });
    return n;
  }

  // A merge of several sets popping in their combined order (split_list.hpp) reads each
  // tree in place (tree(), settle()), releases each member it takes as pop_min does before
  // its callback, then drops the entries taken from the tree. In between, the tree still
  // holds members the store has released: nothing else may use the set.
  void settle(std::size_t n) { tree_.settle(n); }
  void release_member(std::uint32_t id) { store_.release(id); }
  void drop_released_min(std::size_t n) {
    tree_.pop_front(n, [](zentry) {});
  }

  Store& store() { return store_; }
  const Store& store() const { return store_; }
  const order_tree<Store>& tree() const { return tree_; }
  std::size_t memory_bytes() const { return tree_.memory_bytes() + store_.memory_bytes(); }

 private:
  static void validate(const zadd_options& o, double score) {
    if (o.nx && o.xx) throw zset_error("ERR XX and NX options at the same time are not compatible");
    if ((o.gt && o.lt) || ((o.gt || o.lt) && o.nx))
      throw zset_error("ERR GT, LT, and/or NX options at the same time are not compatible");
    if (std::isnan(score)) throw zset_error("ERR value is not a valid float");
  }

  Store store_;
  order_tree<Store> tree_;
};

// Members are arbitrary byte strings compared like memcmp (as Redis does).
class string_store {
 public:
  using member_type = std::string_view;
  using value_type = std::string;

  std::optional<std::uint32_t> find(std::string_view m) const {
    auto it = index_.find(std::string(m));
    if (it == index_.end()) return std::nullopt;
    return it->second;
  }
  std::uint32_t intern(std::string_view m) {
    std::uint32_t id;
    if (!free_.empty()) {
      id = free_.back();
      free_.pop_back();
      names_[id] = std::string(m);
    } else {
      id = static_cast<std::uint32_t>(names_.size());
      names_.emplace_back(m);
      scores_.push_back(0.0);
    }
    index_.emplace(names_[id], id);
    return id;
  }
  void release(std::uint32_t id) {
    index_.erase(names_[id]);
    names_[id].clear();
    free_.push_back(id);
  }
  double score(std::uint32_t id) const { return scores_[id]; }
  void set_score(std::uint32_t id, double s) { scores_[id] = s; }
  // The bytes that order equal scores. std::string_view compares as unsigned bytes, a
  // shorter prefix first: Redis's order.
  std::string_view tie_key(std::uint32_t id) const { return names_[id]; }
  std::string value(std::uint32_t id) const { return names_[id]; }
  std::size_t memory_bytes() const {
    std::size_t b = names_.capacity() * sizeof(std::string) + scores_.capacity() * sizeof(double);
    for (const auto& n : names_) b += n.capacity() > 15 ? n.capacity() + 1 : 0;
    return b + index_.size() * (sizeof(std::string) + 16 + sizeof(void*)) +
           index_.bucket_count() * sizeof(void*);
  }

 private:
  std::unordered_map<std::string, std::uint32_t> index_;
  std::vector<std::string> names_;
  std::vector<double> scores_;
  std::vector<std::uint32_t> free_;
};

// The simulator's members: user slots, reused after release. Each visit's queue token is
// mix64(serial ^ salt) for the visit's serial number: an unpredictable 8-byte value, new for
// every visit, compared big-endian like its bytes would be. The slot is in the set when its
// score is not NaN.
class token_store {
 public:
  using member_type = std::uint32_t;
  using value_type = std::uint32_t;

  explicit token_store(std::uint64_t salt = 0) : salt_(salt) {}

  std::optional<std::uint32_t> find(std::uint32_t slot) const {
    if (slot >= scores_.size() || std::isnan(scores_[slot])) return std::nullopt;
    return slot;
  }
  std::uint32_t intern(std::uint32_t slot) {
    grow(slot);
    return slot;
  }
  // Gives the slot a new visit's token; by default a slot's serial is its own index.
  void assign_token(std::uint32_t slot, std::uint32_t serial) {
    grow(slot);
    serials_[slot] = serial;
  }
  void release(std::uint32_t slot) { scores_[slot] = absent; }
  double score(std::uint32_t slot) const { return scores_[slot]; }
  void set_score(std::uint32_t slot, double s) { scores_[slot] = s; }
  std::uint64_t token(std::uint32_t slot) const { return sim::mix64(serials_[slot] ^ salt_); }
  std::uint64_t tie_key(std::uint32_t slot) const { return token(slot); }
  std::uint32_t value(std::uint32_t slot) const { return slot; }
  std::size_t memory_bytes() const { return scores_.memory_bytes() + serials_.memory_bytes(); }

 private:
  void grow(std::uint32_t slot) {
    while (scores_.size() <= slot) {
      serials_.push_back(static_cast<std::uint32_t>(scores_.size()));
      scores_.push_back(absent);
    }
  }
  static constexpr double absent = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t salt_;
  sim::chunked_vector<double> scores_;
  sim::chunked_vector<std::uint32_t> serials_;
};

// Members are users of an Owner's table, whose scores are not stored but derived from the
// users' state. Owner provides `double score_of(uint32_t)`, `uint64_t token_of(uint32_t)`
// (the member bytes) and `list_of`/`set_list`: which of its sorted sets (lists) holds a
// user. zadd must be given the derived score (checked in debug builds); a user is re-ranked
// by removing it, changing the state its score derives from, and adding it again. Saves 8
// bytes a member over a stored score.
template <class Owner>
class derived_store {
 public:
  using member_type = std::uint32_t;
  using value_type = std::uint32_t;
  static constexpr std::uint8_t no_list = 0xff;

  derived_store(Owner* owner, std::uint8_t list) : owner_(owner), list_(list) {}

  std::optional<std::uint32_t> find(std::uint32_t user) const {
    if (owner_->list_of(user) != list_) return std::nullopt;
    return user;
  }
  std::uint32_t intern(std::uint32_t user) {
    owner_->set_list(user, list_);
    return user;
  }
  void release(std::uint32_t user) { owner_->set_list(user, no_list); }
  double score(std::uint32_t user) const { return owner_->score_of(user); }
  void set_score([[maybe_unused]] std::uint32_t user, [[maybe_unused]] double s) {
    assert(s == owner_->score_of(user));
  }
  std::uint64_t tie_key(std::uint32_t user) const { return owner_->token_of(user); }
  std::uint32_t value(std::uint32_t user) const { return user; }
  std::size_t memory_bytes() const { return 0; }  // all state lives in the owner

 private:
  Owner* owner_;
  std::uint8_t list_;
};

using string_zset = zset<string_store>;
using token_zset = zset<token_store>;

}  // namespace waitroom::models
