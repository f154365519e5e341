// The memo's map from Specs to their entries: insert-only, its lookups free of locks and of writes. A search looks
// up every child of every action it tries (about 70 lookups per Spec it solves) and inserts once per Spec; TBB's
// concurrent_unordered_map walked a bucket's dummy node and chain for each lookup, a cache miss per node, and an
// insert rewrote a neighbour's link, which the other core then missed on: 11% of a 1-thread search's time
// (matmul 384x768x3072), 28% more of it on 2 threads.
//
// Open addressing over 64-bit words, each a node's address with the top 16 bits of its hash in the high bits: a
// probe reads the word array and only the node whose bits agree. Nodes never move, so a key or value pointer stays
// valid for the map's life. Inserts take a mutex (once per Spec, uncontended); a table past half full is copied
// into one twice its size and published, the old kept until the map dies, so a lookup still reading it reads valid
// words, and one that misses a Spec inserted meanwhile looks again under the mutex (find_or_insert).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "spec/error.h"
#include "spec/spec.h"
#include "spec/stable_hash.h"

namespace kriek {

template <class V>
class SpecMap {
 public:
  struct Node {
    Node(const Spec& k, std::uint64_t h) : key(k), hash(h), value() {}
    const Spec key;  ///< first: a node starts a line (its value's alignment), and the key's 64 bytes fill it
    const std::uint64_t hash;
    /// On lines of its own: the value changes while a search runs (a memo entry's lock, state and waiters), the
    /// key never, and other threads keep reading the key.
    alignas(64) V value;
  };

  SpecMap() { grow(kInitialWords); }
  SpecMap(const SpecMap&) = delete;
  SpecMap& operator=(const SpecMap&) = delete;

  /// The node of `spec`, or null.
  Node* find(const Spec& spec) const {
    return find_in(*table_.load(std::memory_order_acquire), spec, mixed_hash(spec));
  }

  /// The node of `spec`, inserted with a value-initialized value when absent.
  Node* find_or_insert(const Spec& spec) {
    const std::uint64_t h = mixed_hash(spec);
    if (Node* n = find_in(*table_.load(std::memory_order_acquire), spec, h)) return n;
    std::lock_guard lock(insert_);
    Table* t = table_.load(std::memory_order_relaxed);
    if (Node* n = find_in(*t, spec, h)) return n;
    if (2 * (nodes_.size() + 1) > t->size()) t = grow(2 * t->size());
    Node* n = nodes_.emplace_back(std::make_unique<Node>(spec, h)).get();
    place(*t, n);
    return n;
  }

  /// Calls `f(node)` for every node, in the order they were inserted. Not while inserts run.
  template <class F>
  void for_each(F&& f) const {
    for (const std::unique_ptr<Node>& n : nodes_) f(*n);
  }

  /// Not while inserts run.
  std::size_t size() const { return nodes_.size(); }

 private:
  using Table = std::vector<std::atomic<std::uint64_t>>;
  static constexpr std::size_t kInitialWords = 1024;
  static constexpr int kAddressBits = 48;
  static constexpr std::uint64_t kAddressMask = (std::uint64_t{1} << kAddressBits) - 1;

  /// boost's hash_value, mixed: the low bits pick the word, the high 16 tag it.
  static std::uint64_t mixed_hash(const Spec& spec) { return fmix64(hash_value(spec)); }

  static std::uint64_t word_of(const Node* n) {
    const auto address = reinterpret_cast<std::uintptr_t>(n);
    KRIEK_ASSERT((address & ~kAddressMask) == 0, "a memo node's address does not fit ", kAddressBits, " bits");
    return address | (n->hash >> kAddressBits << kAddressBits);
  }

  static Node* find_in(const Table& t, const Spec& spec, std::uint64_t h) {
    const std::size_t mask = t.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      const std::uint64_t w = t[i].load(std::memory_order_acquire);
      if (w == 0) return nullptr;
      if (w >> kAddressBits != h >> kAddressBits) continue;
      Node* n = reinterpret_cast<Node*>(w & kAddressMask);
      if (n->key == spec) return n;  // the key's one line (its hash is on the next: the tag sifts enough)
    }
  }

  /// Puts `n` in the first empty word from its hash on (the caller holds the mutex; the table has room).
  static void place(Table& t, const Node* n) {
    const std::size_t mask = t.size() - 1;
    std::size_t i = n->hash & mask;
    while (t[i].load(std::memory_order_relaxed) != 0) i = (i + 1) & mask;
    t[i].store(word_of(n), std::memory_order_release);
  }

  /// A table of `words` (a power of two) holding every node, published (the caller holds the mutex).
  Table* grow(std::size_t words) {
    auto t = std::make_unique<Table>(words);
    for (const std::unique_ptr<Node>& n : nodes_) place(*t, n.get());
    Table* published = tables_.emplace_back(std::move(t)).get();
    table_.store(published, std::memory_order_release);
    return published;
  }

  std::atomic<Table*> table_{nullptr};
  std::vector<std::unique_ptr<Table>> tables_;  ///< every table made, the current last
  std::vector<std::unique_ptr<Node>> nodes_;
  std::mutex insert_;
};

}  // namespace kriek
