#pragma once
// The per-user tables of one replication: entry time, class (with the temporary-VIP bit) and
// the list that holds each waiting user, indexed by visit serial in blocks freed when all
// their users have left. A user's queue token and score are derived from these, not stored:
// the token is a hash of the serial (no memory access on score ties) and the score a pure
// function of entry time, class and serial.
#include <cstdint>

#include "models/scores/score_policy.hpp"
#include "sim/random.hpp"
#include "sim/serial_table.hpp"
#include "sim/time.hpp"

namespace waitroom::models {

class users {
 public:
  static constexpr std::uint8_t no_list = 0xff;  // not waiting (released, gone, or never queued)

  // `classes` is the number of real classes: a credited visit scores as one more class.
  // random_access: users are read in no particular order (a lottery draws them), so the
  // entry times go on huge pages (sim/block_alloc.hpp); sorted sets read them nearly in entry
  // order, where huge pages cost more to touch than they save.
  users(const score_policy& policy, std::uint32_t classes, std::uint64_t token_salt,
        std::uint64_t noise_salt, bool random_access = false)
      : policy_(policy),
        classes_(classes),
        token_salt_(token_salt),
        noise_salt_(noise_salt),
        random_access_(random_access) {}

  // The serial the next queued user will get.
  std::uint32_t next() const { return next_; }
  // A new waiting user, entering now; returns its serial.
  std::uint32_t add(std::int64_t now_ns, std::uint32_t user_class, bool boosted) {
    const std::uint32_t user = next_++;
    entry_ns_.push(user, now_ns, random_access_);
    tags_.push(user,
               {static_cast<std::uint8_t>(user_class | (boosted ? boosted_bit : 0)), no_list});
    std::size_t empty = 0;
    if (liveness_.born(user, empty)) free_block(empty);
    return user;
  }
  // The user has left for good (released or gone): its block may be freed.
  void retire(std::uint32_t user) {
    if (liveness_.died(user)) free_block(user >> sim::serial_block_bits);
  }
  // False once the user's block was freed: every user in it has left.
  bool alive(std::uint32_t user) const { return entry_ns_.has(user); }
  // Alive and in a list (or a lottery set).
  bool waiting(std::uint32_t user) const { return alive(user) && tags_[user].list != no_list; }

  std::int64_t entry_ns(std::uint32_t user) const { return entry_ns_[user]; }
  std::uint32_t cls(std::uint32_t user) const { return tags_[user].class_bits & class_mask; }
  bool boosted(std::uint32_t user) const { return (tags_[user].class_bits & boosted_bit) != 0; }
  // The class a user is scored as: its own, or one past the classes once boosted.
  std::uint32_t score_class(std::uint32_t user) const {
    return boosted(user) ? classes_ : cls(user);
  }
  void boost(std::uint32_t user) { tags_[user].class_bits |= boosted_bit; }
  std::uint8_t list_of(std::uint32_t user) const { return tags_[user].list; }
  void set_list(std::uint32_t user, std::uint8_t list) { tags_[user].list = list; }

  std::uint64_t token_of(std::uint32_t user) const { return sim::mix64(user ^ token_salt_); }
  double score_of(std::uint32_t user) const {
    const double u = sim::unit_from_hash(sim::mix64(user ^ noise_salt_));
    return policy_.score(sim::sim_time::from_ns(entry_ns_[user]), score_class(user), u);
  }

  // A hint: the user's fields are read soon (a lottery's draws made ahead).
  [[gnu::always_inline]] void prefetch(std::uint32_t user) const {  // see serial_table
    entry_ns_.prefetch(user);
    tags_.prefetch(user);
  }

  // Another table indexed by serial (a lottery's set positions) freed with these.
  void attach(sim::serial_table<std::uint32_t>* extra) { extra_ = extra; }

  std::size_t memory_bytes() const { return entry_ns_.memory_bytes() + tags_.memory_bytes(); }

 private:
  // A temporary-VIP credit is a bit in the class byte, so at most 127 classes.
  static constexpr std::uint8_t boosted_bit = 0x80;
  static constexpr std::uint8_t class_mask = 0x7f;

  void free_block(std::size_t b) {
    entry_ns_.free_block(b);
    tags_.free_block(b);
    if (extra_) extra_->free_block(b);
  }

  const score_policy& policy_;
  std::uint32_t classes_;
  std::uint64_t token_salt_, noise_salt_;
  std::uint32_t next_ = 0;
  bool random_access_;  // beside next_, in what was padding
  sim::serial_table<std::int64_t> entry_ns_;
  // A user's class byte and list side by side: a draw at random reads both, one cache line
  // (and one page) rather than two.
  struct tag {
    std::uint8_t class_bits;  // the class, and boosted_bit
    std::uint8_t list;
  };
  sim::serial_table<tag> tags_;
  sim::block_liveness liveness_;
  sim::serial_table<std::uint32_t>* extra_ = nullptr;
};

}  // namespace waitroom::models
