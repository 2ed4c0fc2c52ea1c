#pragma once
// An order-statistics B+tree of (score, member id) entries, ordered as Redis orders a
// sorted set: by score, then by the member's bytes. Member bytes live in a Store (see
// zset.hpp); the tree keeps only a 32-bit id per entry (12 bytes a member in a leaf) and
// asks the store for the ids' tie keys (member bytes) only when their scores tie.
// One data structure with its node layout, rebalancing and order statistics, hence one file
// past 450 lines.
//
// Invariants: every inner node keeps, for each child, the child's entry count and the
// exact smallest key of the child's subtree (so separators never name a removed member,
// and ids can be reused by the store). All operations are O(log n).
//
// The tail's ties, unordered until needed: scores by arrival time in whole milliseconds tie
// by the hundred at a flash crowd's rate, and placing each arrival among its millisecond's
// run at once costs a search with unpredictable branches and a shift of half the run (a
// quarter of the flash crowd's time at 10M users). With integer
// tie keys, entries whose score is above every score in the tree wait in `pending_` in
// arrival order; they are sorted by tie key once and appended when a higher score comes, or
// when an operation needs them in order (a release reaching them). The order is the same.
#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/chunked_vector.hpp"

namespace waitroom::models {

struct zentry {
  double score;
  std::uint32_t id;
};

template <class Store>
class order_tree {
 public:
  static constexpr std::uint32_t leaf_capacity = 128;
  static constexpr std::uint32_t inner_capacity = 64;
  static constexpr std::size_t max_pending = 4096;  // entries of one tie run kept unsorted

  explicit order_tree(const Store* store) : store_(store) { root_ = new_leaf(); }

  std::size_t size() const { return size_ + pending_.size(); }
  std::size_t memory_bytes() const {
    return leaves_.memory_bytes() + inners_.memory_bytes() +
           (free_leaves_.capacity() + free_inners_.capacity()) * sizeof(std::uint32_t) +
           pending_.capacity() * sizeof(pending);
  }
  std::size_t leaf_count() const { return leaves_.size() - free_leaves_.size(); }

  bool less(double sa, std::uint32_t ia, double sb, std::uint32_t ib) const {
    if (sa != sb) return sa < sb;
    return ia != ib && store_->tie_key(ia) < store_->tie_key(ib);
  }

  // A search key whose member bytes (tie key) are looked up once, not at every tie.
  struct probe {
    double score;
    std::uint32_t id;
    decltype(std::declval<const Store&>().tie_key(0u)) tie;
  };
  probe make_probe(double score, std::uint32_t id) const {
    return {score, id, store_->tie_key(id)};
  }
  // entry < probe
  bool entry_less(double s, std::uint32_t i, const probe& p) const {
    if (s != p.score) return s < p.score;
    return i != p.id && store_->tie_key(i) < p.tie;
  }
  // probe < entry
  bool probe_less(const probe& p, double s, std::uint32_t i) const {
    if (p.score != s) return p.score < s;
    return i != p.id && p.tie < store_->tie_key(i);
  }

  void insert(double score, std::uint32_t id) {
    if constexpr (buffers_ties) {
      if (!pending_.empty()) {
        if (score == pending_score_) {
          pending_.push_back({store_->tie_key(id), id});
          // A removal, a rank or a lookup in the run scans or sorts it: a run as long as a
          // shuffled prequeue of a million made each abandonment a linear scan (96% of such a
          // run's time). Past this length the run is sealed and its later ties go into the
          // tree one by one, as the same score would after any seal.
          if (pending_.size() >= max_pending) seal();
          return;
        }
        if (score < pending_score_) {  // before the whole run (a VIP cutting in)
          insert_in_tree(score, id);
          return;
        }
        seal();
      }
      if (size_ == 0 || score > tree_max_) {
        if (ties_at_tail_) {
          pending_score_ = score;
          pending_.push_back({store_->tie_key(id), id});
          return;
        }
      } else if (score == tree_max_) {
        ties_at_tail_ = true;  // the next new score starts a run
      }
    }
    insert_in_tree(score, id);
  }

  bool erase(double score, std::uint32_t id) {
    if (!pending_.empty() && score == pending_score_) {  // the tree holds no such score
      for (auto& p : pending_)
        if (p.id == id) {
          p = pending_.back();
          pending_.pop_back();
          return true;
        }
      return false;
    }
    return erase_in_tree(score, id);
  }

  // Removes the n smallest entries (n <= size()), calling f(zentry) for each in order.
  template <class F>
  void pop_front(std::size_t n, F&& f) {
    if (n > size_) seal();
    pop_in_tree(n, f);
  }

  // Number of entries that come before (score, id) in the order.
  std::size_t rank(double score, std::uint32_t id) const {
    const probe key = make_probe(score, id);
    const std::size_t in_tree =
        count_prefix([&](double s, std::uint32_t i) { return entry_less(s, i, key); });
    if (pending_.empty() || score < pending_score_) return in_tree;
    if (score > pending_score_) return in_tree + pending_.size();
    std::size_t before = 0;
    if constexpr (buffers_ties)
      for (const auto& p : pending_) before += p.id != id && p.tie < key.tie ? 1 : 0;
    return in_tree + before;
  }
  // Number of entries with score < s (or <= s when inclusive).
  std::size_t count_below(double s, bool inclusive) const {
    std::size_t n = inclusive ? count_prefix([&](double x, std::uint32_t) { return x <= s; })
                              : count_prefix([&](double x, std::uint32_t) { return x < s; });
    if (!pending_.empty() && (inclusive ? pending_score_ <= s : pending_score_ < s))
      n += pending_.size();
    return n;
  }

  zentry at(std::size_t r) const {
    if (r >= size_) return {pending_score_, sorted_pending()[r - size_].id};
    const auto [lf, k] = locate(r);
    return {lf->score[k], lf->id[k]};
  }

  // Calls f(zentry) for ranks [from, to) in order.
  template <class F>
  void for_range(std::size_t from, std::size_t to, F&& f) const {
    const std::size_t end = std::min(to, size_);
    while (from < end) {
      const auto [lf, first] = locate(from);
      for (auto k = first; k < lf->n && from < end; ++k, ++from) f(zentry{lf->score[k], lf->id[k]});
    }
    if (from >= to) return;
    const auto run = sorted_pending();
    for (; from < to; ++from) f(zentry{pending_score_, run[from - size_].id});
  }

  // Reading in order in place, for a merge of several trees (split_list.hpp). The tree holds
  // ranks [0, tree_size()); the ranks after them are the pending run, unsorted: settle(n)
  // sorts it into the tree when the first n entries reach it, and pending_in_order() reads it
  // sorted (a copy).
  struct leaf_run {
    const double* score;
    const std::uint32_t* id;
    std::uint32_t n;
  };
  std::size_t tree_size() const { return size_; }
  // Entries from rank r (< tree_size()) to the end of r's leaf; valid until the tree changes.
  leaf_run run_at(std::size_t r) const {
    assert(r < size_);
    const auto [lf, k] = locate(r);
    return {lf->score + k, lf->id + k, lf->n - k};
  }
  void settle(std::size_t n) {
    if (n > size_) seal();
  }
  std::vector<zentry> pending_in_order() const {
    std::vector<zentry> out;
    for (const auto& p : sorted_pending()) out.push_back({pending_score_, p.id});
    return out;
  }

  // Checks every invariant; for tests. Returns false at the first violation.
  bool check() const {
    std::size_t n = 0;
    zentry last{};
    bool has_last = false;
    bool ok = check_node(root_, height_, n, last, has_last);
    if (!pending_.empty() && has_last && !(last.score < pending_score_)) return false;
    if constexpr (buffers_ties)
      for (const auto& p : pending_)
        if (p.tie != store_->tie_key(p.id) || store_->score(p.id) != pending_score_) return false;
    return ok && n == size_;
  }

 private:
  using tie_type = decltype(std::declval<const Store&>().tie_key(0u));
  // Only integer tie keys are kept beside the pending entries (a string_view could dangle).
  static constexpr bool buffers_ties = std::is_integral_v<tie_type>;
  struct pending {
    std::conditional_t<buffers_ties, tie_type, std::uint64_t> tie;
    std::uint32_t id;
  };

  std::vector<pending> sorted_pending() const {
    std::vector<pending> run = pending_;
    sort_run(run);
    return run;
  }
  // Sorts a run by tie key. Tie keys are hashes (tokens), so one in-place bucket pass on
  // the top bits of (key - min) leaves about one entry a bucket and an insertion sort
  // finishes it: no comparison sort's mispredicted branches (a sixth of the flash crowd's
  // time went to std::sort at 10M users). Keys are unique, so the order is std::sort's.
  static constexpr int max_bucket_bits = 12;
  // The insertion sort's shifts grow as n^2 / buckets: runs are sealed before that matters.
  static_assert(max_pending <= (std::size_t{1} << max_bucket_bits));
  static void sort_run(std::vector<pending>& v) {
    const auto by_tie = [](const pending& a, const pending& b) { return a.tie < b.tie; };
    if constexpr (std::is_same_v<decltype(pending::tie), std::uint64_t>) {
      if (v.size() >= 32) {
        auto lo = v[0].tie, hi = v[0].tie;
        for (const auto& p : v) {
          lo = std::min(lo, p.tie);
          hi = std::max(hi, p.tie);
        }
        const int bits = std::clamp(static_cast<int>(std::bit_width(v.size())), 6, max_bucket_bits);
        const int shift = std::max(0, static_cast<int>(std::bit_width(hi - lo)) - bits);
        const auto bucket = [&](const pending& p) {
          return static_cast<std::uint32_t>((p.tie - lo) >> shift);
        };
        const std::uint32_t buckets = std::uint32_t{1} << bits;
        std::array<std::uint32_t, (1 << max_bucket_bits) + 1> end;  // end[b]: one past bucket b
        std::array<std::uint32_t, 1 << max_bucket_bits> next;       // the next slot to fill in b
        std::fill_n(end.begin(), buckets + 1, 0u);
        for (const auto& p : v) ++end[bucket(p)];
        std::uint32_t at = 0;
        for (std::uint32_t b = 0; b < buckets; ++b) {
          next[b] = at;
          at += end[b];
          end[b] = at;
        }
        for (std::uint32_t b = 0; b < buckets; ++b)
          while (next[b] < end[b]) {  // American flag sort: cycle entries to their buckets
            pending x = v[next[b]];
            for (std::uint32_t xb = bucket(x); xb != b; xb = bucket(x)) std::swap(x, v[next[xb]++]);
            v[next[b]++] = x;
          }
        for (std::size_t i = 1; i < v.size(); ++i)
          for (std::size_t j = i; j > 0 && by_tie(v[j], v[j - 1]); --j) std::swap(v[j], v[j - 1]);
        return;
      }
    }
    std::sort(v.begin(), v.end(), by_tie);
  }

  // The pending run into the tree, in order: appends at the tail.
  void seal() {
    if (pending_.empty()) return;
    // A run of one: that score had no ties, so the next scores go straight into the tree
    // until a tie at the tail shows again (scores in microseconds rarely tie).
    ties_at_tail_ = pending_.size() > 1;
    if (ties_at_tail_) sort_run(pending_);
    append_run();
    pending_.clear();
  }

  // Every tree score is below the run's (tree_max_ bounds them), so the run goes to the
  // rightmost leaf in order: filled in place with one count update per level, where
  // insert_in_tree would descend from the root per entry. A full or empty leaf takes the
  // entry through insert_in_tree (redistribute or split as before): the same tree shape.
  void append_run() {
    const std::size_t n = pending_.size();
    std::size_t k = 0;
    while (k < n) {
      std::array<step, max_height> path;
      std::uint32_t node = root_;
      for (int d = 0; d < height_; ++d) {
        const inner& in = inners_[node];
        path[d] = {node, in.n - 1};
        node = in.child[in.n - 1];
      }
      leaf& lf = leaves_[node];
      if (lf.n == 0 || lf.n == leaf_capacity) {
        insert_in_tree(pending_score_, pending_[k++].id);
        continue;
      }
      const auto m = static_cast<std::uint32_t>(std::min<std::size_t>(n - k, leaf_capacity - lf.n));
      for (std::uint32_t j = 0; j < m; ++j) {
        lf.score[lf.n + j] = pending_score_;
        lf.id[lf.n + j] = pending_[k + j].id;
      }
      lf.n += m;
      for (int d = 0; d < height_; ++d) inners_[path[d].node].count[path[d].index] += m;
      size_ += m;
      k += m;
    }
    tree_max_ = std::max(tree_max_, pending_score_);
  }

  void insert_in_tree(double score, std::uint32_t id) {
    tree_max_ = size_ == 0 ? score : std::max(tree_max_, score);
    const probe key = make_probe(score, id);
    std::array<step, max_height> path;
    std::uint32_t node = root_;
    if (height_ > 0 && finger_holds(key)) {  // the leaf of the last insert: no descent
      std::copy_n(finger_.path.begin(), height_, path.begin());
      node = finger_.leaf;
      for (int d = 0; d < height_; ++d) ++inners_[path[d].node].count[path[d].index];
    } else if (height_ > 0) {  // a lone leaf has nothing to route and no finger
      finger_.valid = false;
      for (int d = 0; d < height_; ++d) {
        inner& in = inners_[node];
        std::uint32_t i = route(in, key);
        path[d] = {node, i};
        ++in.count[i];
        if (i + 1 < in.n) {  // the deepest next subtree's minimum bounds this leaf's keys
          finger_.has_upper = true;
          finger_.upper_score = in.min_score[i + 1];
          finger_.upper_id = in.min_id[i + 1];
        } else if (d == 0) {
          finger_.has_upper = false;
        }
        node = in.child[i];
      }
    }
    ++size_;
    leaf& lf = leaves_[node];
    // An append (a run's sorted entries, an arrival after every score) is one comparison.
    const std::uint32_t pos = lf.n > 0 && entry_less(lf.score[lf.n - 1], lf.id[lf.n - 1], key)
                                  ? lf.n
                                  : lower_bound(lf, key);
    if (lf.n < leaf_capacity) {
      leaf_insert(lf, pos, score, id);
      if (pos == 0) fix_min_upward(path, height_, score, id);
      if (!finger_.valid && height_ > 0) {  // a lone leaf needs no finger
        std::copy_n(path.begin(), height_, finger_.path.begin());
        finger_.leaf = node;
        finger_.valid = true;
      }
      return;
    }
    finger_.valid = false;  // the leaf splits or passes entries on: bounds move
    if (height_ > 0 && redistribute(path, node, pos, score, id)) return;
    // Split. An append keeps the left leaf full (sequential inserts pack leaves densely);
    // otherwise cut at the insertion point or the middle, whichever is later, so that runs
    // of ascending inserts in the middle (VIPs cutting in) also fill leaves.
    std::uint32_t sp = pos == leaf_capacity ? leaf_capacity : std::max(pos, leaf_capacity / 2);
    std::uint32_t right = new_leaf();
    leaf& l = leaves_[node];
    leaf& r = leaves_[right];
    r.n = leaf_capacity - sp;
    std::memcpy(r.score, l.score + sp, r.n * sizeof(double));
    std::memcpy(r.id, l.id + sp, r.n * sizeof(std::uint32_t));
    l.n = sp;
    if (pos < sp || (pos == sp && sp < leaf_capacity)) {
      leaf_insert(l, pos, score, id);
      if (pos == 0) fix_min_upward(path, height_, score, id);
    } else {
      leaf_insert(r, pos - sp, score, id);
    }
    insert_child_upward(path, height_, l.n, right, r.n, r.score[0], r.id[0]);
  }

  bool erase_in_tree(double score, std::uint32_t id) {
    finger_.valid = false;
    const probe key = make_probe(score, id);
    std::array<step, max_height> path;
    std::uint32_t node = root_;
    for (int d = 0; d < height_; ++d) {
      const inner& in = inners_[node];
      std::uint32_t i = route(in, key);
      path[d] = {node, i};
      node = in.child[i];
    }
    leaf& lf = leaves_[node];
    std::uint32_t pos = lower_bound(lf, key);
    if (pos >= lf.n || lf.score[pos] != score || lf.id[pos] != id) return false;
    for (int d = 0; d < height_; ++d) --inners_[path[d].node].count[path[d].index];
    --size_;
    leaf_erase(lf, pos, 1);
    if (height_ == 0) return true;
    if (lf.n == 0) {
      free_leaves_.push_back(node);
      remove_child_upward(path, height_ - 1);
    } else {
      if (pos == 0) fix_min_upward(path, height_, lf.score[0], lf.id[0]);
      maybe_merge_leaf(path[height_ - 1]);
    }
    collapse_root();
    return true;
  }

  template <class F>
  void pop_in_tree(std::size_t n, F& f) {
    finger_.valid = false;
    while (n > 0) {
      std::array<step, max_height> path;
      std::uint32_t node = root_;
      for (int d = 0; d < height_; ++d) {
        path[d] = {node, 0};
        node = inners_[node].child[0];
      }
      leaf& lf = leaves_[node];
      auto m = static_cast<std::uint32_t>(std::min<std::size_t>(n, lf.n));
      for (std::uint32_t k = 0; k < m; ++k) f(zentry{lf.score[k], lf.id[k]});
      leaf_erase(lf, 0, m);
      for (int d = 0; d < height_; ++d) inners_[path[d].node].count[0] -= m;
      size_ -= m;
      n -= m;
      if (height_ == 0) break;
      if (lf.n == 0) {
        free_leaves_.push_back(node);
        remove_child_upward(path, height_ - 1);
      } else {
        fix_min_upward(path, height_, lf.score[0], lf.id[0]);
      }
      collapse_root();
    }
  }

  static constexpr int max_height = 16;

  struct leaf {
    std::uint32_t n;
    double score[leaf_capacity];
    std::uint32_t id[leaf_capacity];
  };
  struct inner {
    std::uint32_t n;
    std::uint32_t child[inner_capacity];
    std::uint32_t count[inner_capacity];
    std::uint32_t min_id[inner_capacity];
    double min_score[inner_capacity];
  };
  struct step {
    std::uint32_t node;
    std::uint32_t index;
  };

  // The leaf holding the tree's entry of rank r (r < size_), and its index there.
  std::pair<const leaf*, std::uint32_t> locate(std::size_t r) const {
    std::uint32_t node = root_;
    for (int d = 0; d < height_; ++d) {
      const inner& in = inners_[node];
      std::uint32_t i = 0;
      while (r >= in.count[i]) r -= in.count[i++];
      node = in.child[i];
    }
    return {&leaves_[node], static_cast<std::uint32_t>(r)};
  }

  std::uint32_t new_leaf() {
    std::uint32_t i;
    if (!free_leaves_.empty()) {
      i = free_leaves_.back();
      free_leaves_.pop_back();
    } else {
      i = static_cast<std::uint32_t>(leaves_.emplace_uninitialized());
    }
    leaves_[i].n = 0;
    return i;
  }
  std::uint32_t new_inner() {
    std::uint32_t i;
    if (!free_inners_.empty()) {
      i = free_inners_.back();
      free_inners_.pop_back();
    } else {
      i = static_cast<std::uint32_t>(inners_.emplace_uninitialized());
    }
    inners_[i].n = 0;
    return i;
  }

  // Whether the key belongs in the leaf of the last insert: at or above the leaf's first
  // entry and below the minimum of the subtree that follows it (separators are exact minima).
  // VIPs scored 10 s back arrive in order, so most land in the leaf the previous one did.
  bool finger_holds(const probe& key) const {
    if (!finger_.valid) return false;
    const leaf& lf = leaves_[finger_.leaf];
    return lf.n > 0 && !probe_less(key, lf.score[0], lf.id[0]) &&
           (!finger_.has_upper || probe_less(key, finger_.upper_score, finger_.upper_id));
  }

  // The child whose subtree holds the key: the last child whose minimum is <= key.
  std::uint32_t route(const inner& in, const probe& key) const {
    // Arrivals scored by arrival time land in the last child (at the tail, among that
    // millisecond's ties): one comparison instead of a binary search at every level.
    if (in.n > 1 && !probe_less(key, in.min_score[in.n - 1], in.min_id[in.n - 1])) return in.n - 1;
    // Aging moves a list's oldest users out: keys in the first child.
    if (in.n > 2 && probe_less(key, in.min_score[1], in.min_id[1])) return 0;
    // Otherwise the first i in [2, n - 1) (n > 2; else [1, n - 1)) with key < min[i].
    std::uint32_t lo = in.n > 2 ? 2 : 1, hi = in.n > 1 ? in.n - 1 : in.n;
    while (lo < hi) {
      std::uint32_t mid = (lo + hi) / 2;
      if (probe_less(key, in.min_score[mid], in.min_id[mid]))
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo - 1;
  }

  std::uint32_t lower_bound(const leaf& lf, const probe& key) const {
    std::uint32_t lo = 0, hi = lf.n;
    while (lo < hi) {
      std::uint32_t mid = (lo + hi) / 2;
      if (entry_less(lf.score[mid], lf.id[mid], key))
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo;
  }

  template <class Pred>
  std::size_t count_prefix(Pred pred) const {
    std::size_t total = 0;
    std::uint32_t node = root_;
    for (int d = 0; d < height_; ++d) {
      const inner& in = inners_[node];
      std::uint32_t i = 0, hi = in.n;  // first child whose minimum fails pred
      while (i < hi) {
        std::uint32_t mid = (i + hi) / 2;
        if (pred(in.min_score[mid], in.min_id[mid]))
          i = mid + 1;
        else
          hi = mid;
      }
      if (i == 0) return total;
      for (std::uint32_t k = 0; k + 1 < i; ++k) total += in.count[k];
      node = in.child[i - 1];
    }
    const leaf& lf = leaves_[node];
    std::uint32_t lo = 0, hi = lf.n;
    while (lo < hi) {
      std::uint32_t mid = (lo + hi) / 2;
      if (pred(lf.score[mid], lf.id[mid]))
        lo = mid + 1;
      else
        hi = mid;
    }
    return total + lo;
  }

  // A short queue (a priority M/M/1 holds a few users) shifts a few entries: a plain loop
  // there, as a call to memmove costs more than the copy.
  static constexpr std::uint32_t short_shift = 8;
  static void leaf_insert(leaf& lf, std::uint32_t pos, double score, std::uint32_t id) {
    const std::uint32_t k = lf.n - pos;
    if (k <= short_shift) {
      for (std::uint32_t j = lf.n; j > pos; --j) {
        lf.score[j] = lf.score[j - 1];
        lf.id[j] = lf.id[j - 1];
      }
    } else {
      std::memmove(lf.score + pos + 1, lf.score + pos, k * sizeof(double));
      std::memmove(lf.id + pos + 1, lf.id + pos, k * sizeof(std::uint32_t));
    }
    lf.score[pos] = score;
    lf.id[pos] = id;
    ++lf.n;
  }
  static void leaf_erase(leaf& lf, std::uint32_t pos, std::uint32_t m) {
    const std::uint32_t k = lf.n - pos - m;
    if (k <= short_shift) {
      for (std::uint32_t j = 0; j < k; ++j) {
        lf.score[pos + j] = lf.score[pos + m + j];
        lf.id[pos + j] = lf.id[pos + m + j];
      }
    } else {
      std::memmove(lf.score + pos, lf.score + pos + m, k * sizeof(double));
      std::memmove(lf.id + pos, lf.id + pos + m, k * sizeof(std::uint32_t));
    }
    lf.n -= m;
  }

  // The subtree reached through path[depth-1] has a new minimum: record it in each parent,
  // going up while the subtree is its parent's first child.
  void fix_min_upward(const std::array<step, max_height>& path, int depth, double score,
                      std::uint32_t id) {
    for (int d = depth - 1; d >= 0; --d) {
      inner& in = inners_[path[d].node];
      in.min_score[path[d].index] = score;
      in.min_id[path[d].index] = id;
      if (path[d].index != 0) break;
    }
  }

  // A full leaf that has a sibling with room shifts entries into it instead of splitting
  // (as in a B*-tree), so random inserts (VIPs landing among score ties) keep leaves dense.
  // Returns false when neither sibling has room for at least two entries.
  bool redistribute(const std::array<step, max_height>& path, std::uint32_t node, std::uint32_t pos,
                    double score, std::uint32_t id) {
    const step& up = path[height_ - 1];
    inner& in = inners_[up.node];
    const std::uint32_t i = up.index;
    leaf& lf = leaves_[node];
    if (i + 1 < in.n && in.count[i + 1] + 2 <= leaf_capacity) {
      leaf& r = leaves_[in.child[i + 1]];
      std::uint32_t t = (leaf_capacity - r.n + 1) / 2;  // move the last t entries right
      std::memmove(r.score + t, r.score, r.n * sizeof(double));
      std::memmove(r.id + t, r.id, r.n * sizeof(std::uint32_t));
      std::memcpy(r.score, lf.score + (lf.n - t), t * sizeof(double));
      std::memcpy(r.id, lf.id + (lf.n - t), t * sizeof(std::uint32_t));
      r.n += t;
      lf.n -= t;
      in.count[i] -= t;  // it was already counted with the new entry
      in.count[i + 1] += t;
      if (pos <= lf.n) {
        leaf_insert(lf, pos, score, id);
        if (pos == 0) fix_min_upward(path, height_, score, id);
      } else {
        leaf_insert(r, pos - lf.n, score, id);
        --in.count[i];
        ++in.count[i + 1];
      }
      in.min_score[i + 1] = r.score[0];
      in.min_id[i + 1] = r.id[0];
      return true;
    }
    if (i > 0 && in.count[i - 1] + 2 <= leaf_capacity) {
      leaf& l = leaves_[in.child[i - 1]];
      std::uint32_t t = (leaf_capacity - l.n + 1) / 2;  // move the first t entries left
      std::memcpy(l.score + l.n, lf.score, t * sizeof(double));
      std::memcpy(l.id + l.n, lf.id, t * sizeof(std::uint32_t));
      l.n += t;
      leaf_erase(lf, 0, t);
      in.count[i] -= t;
      in.count[i - 1] += t;
      if (pos < t) {  // the new key sorts among the moved ones: it goes left too
        leaf_insert(l, l.n - t + pos, score, id);
        --in.count[i];
        ++in.count[i - 1];
      } else {
        leaf_insert(lf, pos - t, score, id);
      }
      in.min_score[i] = lf.score[0];  // i > 0: no ancestor holds this minimum
      in.min_id[i] = lf.id[0];
      return true;
    }
    return false;
  }

  // Child path[depth-1].index of node path[depth-1].node was split: it now holds left_count
  // entries and a new right sibling follows it.
  void insert_child_upward(const std::array<step, max_height>& path, int depth,
                           std::uint32_t left_count, std::uint32_t right, std::uint32_t right_count,
                           double right_score, std::uint32_t right_id) {
    for (int d = depth - 1; d >= 0; --d) {
      std::uint32_t node = path[d].node;
      std::uint32_t pos = path[d].index + 1;
      inner& in = inners_[node];
      in.count[pos - 1] = left_count;
      if (in.n < inner_capacity) {
        inner_insert(in, pos, right, right_count, right_score, right_id);
        return;
      }
      std::uint32_t sp = pos == inner_capacity ? inner_capacity : inner_capacity / 2;
      std::uint32_t rnode = new_inner();
      inner& l = inners_[node];
      inner& r = inners_[rnode];
      r.n = inner_capacity - sp;
      std::memcpy(r.child, l.child + sp, r.n * sizeof(std::uint32_t));
      std::memcpy(r.count, l.count + sp, r.n * sizeof(std::uint32_t));
      std::memcpy(r.min_id, l.min_id + sp, r.n * sizeof(std::uint32_t));
      std::memcpy(r.min_score, l.min_score + sp, r.n * sizeof(double));
      l.n = sp;
      if (pos <= sp && sp < inner_capacity)
        inner_insert(l, pos, right, right_count, right_score, right_id);
      else
        inner_insert(r, pos - sp, right, right_count, right_score, right_id);
      left_count = sum_counts(l);
      right_count = sum_counts(r);
      right = rnode;
      right_score = r.min_score[0];
      right_id = r.min_id[0];
    }
    // The root split: grow a level.
    std::uint32_t old_root = root_;
    std::uint32_t nr = new_inner();
    inner& in = inners_[nr];
    in.n = 2;
    in.child[0] = old_root;
    in.count[0] = left_count;
    in.min_score[0] = min_score_of(old_root, height_);
    in.min_id[0] = min_id_of(old_root, height_);
    in.child[1] = right;
    in.count[1] = right_count;
    in.min_score[1] = right_score;
    in.min_id[1] = right_id;
    root_ = nr;
    ++height_;
  }

  double min_score_of(std::uint32_t node, int h) const {
    return h == 0 ? leaves_[node].score[0] : inners_[node].min_score[0];
  }
  std::uint32_t min_id_of(std::uint32_t node, int h) const {
    return h == 0 ? leaves_[node].id[0] : inners_[node].min_id[0];
  }

  static std::uint32_t sum_counts(const inner& in) {
    std::uint32_t s = 0;
    for (std::uint32_t i = 0; i < in.n; ++i) s += in.count[i];
    return s;
  }

  static void inner_insert(inner& in, std::uint32_t pos, std::uint32_t child, std::uint32_t count,
                           double score, std::uint32_t id) {
    std::uint32_t tail = in.n - pos;
    std::memmove(in.child + pos + 1, in.child + pos, tail * sizeof(std::uint32_t));
    std::memmove(in.count + pos + 1, in.count + pos, tail * sizeof(std::uint32_t));
    std::memmove(in.min_id + pos + 1, in.min_id + pos, tail * sizeof(std::uint32_t));
    std::memmove(in.min_score + pos + 1, in.min_score + pos, tail * sizeof(double));
    in.child[pos] = child;
    in.count[pos] = count;
    in.min_score[pos] = score;
    in.min_id[pos] = id;
    ++in.n;
  }
  static void inner_erase(inner& in, std::uint32_t pos) {
    std::uint32_t tail = in.n - pos - 1;
    std::memmove(in.child + pos, in.child + pos + 1, tail * sizeof(std::uint32_t));
    std::memmove(in.count + pos, in.count + pos + 1, tail * sizeof(std::uint32_t));
    std::memmove(in.min_id + pos, in.min_id + pos + 1, tail * sizeof(std::uint32_t));
    std::memmove(in.min_score + pos, in.min_score + pos + 1, tail * sizeof(double));
    --in.n;
  }

  // The child at path[d] is empty and already freed: remove it from its parent, then remove
  // any parent that becomes empty, and fix minima where a first child went away.
  void remove_child_upward(const std::array<step, max_height>& path, int d) {
    for (; d >= 0; --d) {
      inner& in = inners_[path[d].node];
      inner_erase(in, path[d].index);
      if (in.n == 0 && d > 0) {
        free_inners_.push_back(path[d].node);
        continue;
      }
      if (in.n > 0 && path[d].index == 0) fix_min_upward(path, d, in.min_score[0], in.min_id[0]);
      return;
    }
  }

  // A leaf under a quarter full merges with a neighbour that has room, so scattered
  // removals (abandonment) cannot leave the tree mostly empty leaves.
  void maybe_merge_leaf(const step& parent_step) {
    inner& in = inners_[parent_step.node];
    std::uint32_t i = parent_step.index;
    if (leaves_[in.child[i]].n >= leaf_capacity / 4 || in.n < 2) return;
    std::uint32_t left = i + 1 < in.n ? i : i - 1;  // merge child left+1 into child left
    leaf& a = leaves_[in.child[left]];
    leaf& b = leaves_[in.child[left + 1]];
    if (a.n + b.n > leaf_capacity) return;
    std::memcpy(a.score + a.n, b.score, b.n * sizeof(double));
    std::memcpy(a.id + a.n, b.id, b.n * sizeof(std::uint32_t));
    a.n += b.n;
    free_leaves_.push_back(in.child[left + 1]);
    in.count[left] += in.count[left + 1];
    inner_erase(in, left + 1);
  }

  void collapse_root() {
    while (height_ > 0 && inners_[root_].n == 1) {
      std::uint32_t old = root_;
      root_ = inners_[old].child[0];
      free_inners_.push_back(old);
      --height_;
    }
    if (height_ > 0 && inners_[root_].n == 0) {  // everything removed
      free_inners_.push_back(root_);
      root_ = new_leaf();
      height_ = 0;
    }
  }

  bool check_node(std::uint32_t node, int h, std::size_t& n, zentry& last, bool& has_last) const {
    if (h == 0) {
      const leaf& lf = leaves_[node];
      for (std::uint32_t k = 0; k < lf.n; ++k) {
        if (has_last && !less(last.score, last.id, lf.score[k], lf.id[k])) return false;
        last = {lf.score[k], lf.id[k]};
        has_last = true;
      }
      n += lf.n;
      return lf.n > 0 || node == root_;
    }
    const inner& in = inners_[node];
    if (in.n == 0) return false;
    for (std::uint32_t i = 0; i < in.n; ++i) {
      std::size_t sub = 0;
      if (!check_node(in.child[i], h - 1, sub, last, has_last)) return false;
      if (sub != in.count[i]) return false;
      if (min_score_of(in.child[i], h - 1) != in.min_score[i] ||
          min_id_of(in.child[i], h - 1) != in.min_id[i])
        return false;
      n += sub;
    }
    return true;
  }

  const Store* store_;
  sim::chunked_vector<leaf, 11> leaves_;  // 2048 leaves: 3 MiB blocks
  sim::chunked_vector<inner, 6> inners_;
  std::vector<std::uint32_t> free_leaves_;
  std::vector<std::uint32_t> free_inners_;
  std::uint32_t root_ = 0;
  int height_ = 0;
  std::size_t size_ = 0;  // entries in the tree (pending_ apart)
  std::vector<pending> pending_;
  double pending_score_ = 0.0;
  // At least the largest score in the tree (erases leave it high: then a run is not started
  // where it could have been, never started where it must not).
  double tree_max_ = 0.0;
  bool ties_at_tail_ = true;  // whether new scores start a pending run
  // The leaf of the last insert that neither split nor redistributed, its path and the key
  // bound above it. Anything that moves entries between leaves or removes one drops it;
  // appends at the rightmost leaf (append_run) keep its path and bounds as they were.
  struct finger {
    bool valid = false;
    bool has_upper = false;
    std::uint32_t leaf = 0;
    double upper_score = 0.0;
    std::uint32_t upper_id = 0;
    std::array<step, max_height> path{};
  } finger_;
};

}  // namespace waitroom::models
