#pragma once
// The live mirror: every queue operation the model reports is executed on Redis, pipelined,
// and every reply is checked against the model. After each release the members the release
// script returned must be exactly the model's, in order; the first difference throws
// redis_error{parity} naming the time, the list and both member lists.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/queues/queue_mirror.hpp"
#include "models/release/selector.hpp"
#include "models/spec/release_spec.hpp"
#include "redis/connection.hpp"
#include "redis/keys.hpp"
#include "redis/releasers.hpp"
#include "redis/signed_token.hpp"
#include "sim/random.hpp"

namespace waitroom::redis {

struct mirror_options {
  std::size_t pipeline_depth = 1024;     // commands in flight before the replies are read
  bool lottery = false;                  // lists are per-class SETs drawn by the model
  const token_signer* signer = nullptr;  // members are signed tokens
  // The scenario's release.consumers and release.atomic: with more than one releaser, or
  // without the script, each release is split among that many releasers, each on its own
  // connection, racing as gateway instances do (docs/redis.md, "Concurrent releasers").
  unsigned releasers = 1;
  bool atomic = true;
  // What set `releasers`, named when the system cannot start that many threads (exit 2).
  std::string releasers_from = "/release/consumers";
};

struct mirror_stats {
  std::uint64_t releases = 0;
  std::uint64_t released_members = 0;
  std::uint64_t draws = 0;
  std::uint64_t ranks_checked = 0;
  std::uint64_t sizes_checked = 0;  // ZCARD/SCARD at each queue-length sample (counted)
  std::uint64_t replies_checked = 0;
  std::uint64_t state_checks = 0;  // ZCARD/SCARD of every key against the model's counts
  // The stats hash's `released:<list>` counters against the model's releases, once per round
  // that released anyone (and in every state check).
  std::uint64_t counter_checks = 0;
  // Releases made by the script that chooses the list itself (choose_lists), and the units
  // it found no list for (ratio's share of an empty list without work conservation).
  std::uint64_t chosen_releases = 0;
  std::uint64_t chosen_lost = 0;
  // Concurrent releasers (mirror_options::releasers > 1 or !atomic), summed over the run.
  unsigned releasers = 1;
  bool atomic = true;
  std::uint64_t rounds = 0;          // releases split among the releasers (the model's, gathered)
  std::uint64_t releaser_calls = 0;  // release calls the releasers made (one per non-empty part)
  std::uint64_t handed_out = 0;      // members they got, counting repeats
  std::uint64_t duplicated = 0;      // handed out more than once in the same release
  std::uint64_t lost = 0;            // released by the model but got by no releaser in that release
  command_stats releaser_commands;
};

class redis_mirror final : public models::queue_mirror {
 public:
  // `c` must outlive the mirror. Loads the scripts on it.
  redis_mirror(connection& c, key_layout keys, mirror_options opt = {});

  void enter(std::uint32_t list, std::uint64_t token, double score, std::int64_t now_ns) override;
  void remove(std::uint32_t list, std::uint64_t token, std::int64_t now_ns) override;
  void move(std::uint32_t from, std::uint32_t to, std::uint64_t token, double score,
            std::int64_t now_ns) override;
  void released(std::uint32_t list, std::span<const std::uint64_t> tokens,
                std::int64_t now_ns) override;
  void drawn(std::uint32_t set, std::uint64_t token, std::int64_t now_ns) override;
  void ranked(std::uint32_t list, std::uint64_t token, std::uint64_t rank,
              std::int64_t now_ns) override;
  void counted(std::uint32_t list, std::uint64_t size, std::int64_t now_ns) override;
  void round_end(std::int64_t now_ns) override;

  // Where the model picks a list per unit (strict, ratio or probabilistic over several
  // lists), let Redis make the choice: from now on the model's per-list releases between two
  // other operations (or round ends) are gathered into one call of the choose script, which
  // picks each unit's list on Redis from the lists' sizes there, the ratio's credit kept on
  // Redis, and for probabilistic the model's own draws (replayed here from a copy of its
  // stream, `stream`, taken before the first pick). Its members per list, the order of lists,
  // the lost units and the ratio's credit must equal the model's. `selector` and `stream` are
  // the model's (read only); `lost_units` reads the model's count of lost units. They must
  // outlive the mirror. Not with a lottery or concurrent releasers (std::logic_error).
  void choose_lists(const models::selection_spec& spec, std::uint32_t lists,
                    const models::list_selector& selector, const sim::rng& stream,
                    std::function<std::uint64_t()> lost_units);
  // Whether choose_lists applies to this selection (strict, ratio, probabilistic; more than
  // one list; one atomic releaser).
  static bool can_choose(const models::selection_spec& spec, std::uint32_t lists,
                         unsigned releasers, bool atomic);

  // Reads every outstanding reply and checks each key's size against the model's count.
  void finish(std::int64_t now_ns);
  // Checks ZCARD/SCARD of every list and of the released set against the counts the
  // operations imply (after a reconnect, and at the end).
  void check_state(std::int64_t now_ns);

  // A copy: the releasers' command counts are read from their connections.
  mirror_stats stats() const;
  const key_layout& keys() const { return keys_; }
  std::string member(std::uint64_t token) const;

 private:
  enum class op : std::uint8_t { enter, remove, move, release, draw, rank, choose, counters, size };
  // What the choose script must return: the model's release, list by list.
  struct choice {
    std::vector<std::vector<std::uint64_t>> members;  // per list, in the order taken
    std::vector<std::uint32_t> order;                 // the list of each unit taken
    std::uint64_t lost = 0;
    std::vector<double> credit;  // ratio: the model's credit after the release
    bool check_credit = false;
  };
  struct expectation {
    op kind;
    std::uint32_t list;
    std::int64_t now_ns;
    std::int64_t value;                  // expected integer (rank, size, or 1)
    std::vector<std::uint64_t> members;  // a release's members, in order
    std::shared_ptr<const choice> chosen = nullptr;
    std::vector<std::int64_t> counts = {};  // op::counters: each list's released:<list>
  };
  void push(std::vector<std::string> cmd, expectation e);
  void drain();  // reads every pending reply and checks it
  void check(const reply& r, const expectation& e);
  std::string set_key(std::uint32_t list) const {
    return opt_.lottery ? keys_.lottery(list) : keys_.list(list);
  }
  std::int64_t& expected_size(std::uint32_t list);
  // The scripts' count of members released from `list` (the stats hash's released:<list>):
  // added to by the release, draw and choose scripts, not by ZRANGE-then-ZREM releasers.
  void count_released(std::uint32_t list, std::uint64_t n);
  void check_counters(std::int64_t now_ns);  // pipelines an HMGET of every counter
  void release_concurrently(std::uint32_t list, std::span<const std::uint64_t> tokens,
                            std::int64_t now_ns);
  // With releasers: the model's consecutive releases from a list (a ratio or probabilistic
  // selection releases one user at a time), gathered until another operation touches the
  // list or the round ends, then released at once among the releasers.
  void flush_release(std::uint32_t list);
  void flush_releases();
  // choose_lists: sends the gathered release as one call of the choose script.
  void flush_choice();
  void check_choice(const reply& r, const expectation& e);

  connection& c_;
  key_layout keys_;
  mirror_options opt_;
  std::size_t release_script_, draw_script_, move_script_;
  std::deque<expectation> expect_;
  std::vector<std::int64_t> sizes_;  // members each list must hold
  std::int64_t released_total_ = 0;
  std::vector<std::int64_t> counted_;  // released:<list> as the model's releases make it
  bool counters_due_ = false;          // counted since the last check
  std::uint64_t release_seq_ = 0;
  std::size_t releases_in_flight_ = 0;
  static constexpr std::uint64_t release_log_window = 64;  // > releases in flight
  std::int64_t last_now_ns_ = 0;
  bool recheck_ = false;  // a reconnect happened: compare the state at the next round end
  mirror_stats stats_;
  std::unique_ptr<releaser_pool> pool_;  // null: one pipelined release script
  struct gathered {
    std::vector<std::uint64_t> tokens;
    std::int64_t now_ns = 0;  // the first one's time
  };
  std::vector<gathered> gathered_;  // by list, with releasers

  // choose_lists: the model's selection (read only) and the release gathered since the last
  // call of the choose script.
  struct chooser {
    models::selection_kind kind;
    bool work_conserving;
    std::vector<double> start_probabilities;
    std::uint32_t lists;
    const models::list_selector* selector;
    const sim::rng* model_stream;
    sim::rng draws;  // a copy of the model's stream, as far as the choices sent so far
    std::function<std::uint64_t()> lost_units;
    std::uint64_t lost_sent = 0;  // the model's lost units already sent
    std::size_t script = 0;
    // The gathered release.
    bool open = false;
    std::int64_t now_ns = 0;
    std::uint64_t epoch = 0;           // the selector's weight_changes() when it opened
    std::vector<double> credit_after;  // the model's credit at its last unit
    choice batch;
  };
  std::unique_ptr<chooser> choose_;
};

// Formats a parity failure: the time, the list and both member lists (long lists cut around
// the first difference).
std::string parity_message(std::int64_t now_ns, std::uint32_t list, std::string_view what,
                           const std::vector<std::string>& model,
                           const std::vector<std::string>& redis);

}  // namespace waitroom::redis
