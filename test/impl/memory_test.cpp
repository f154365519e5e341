// MemoryUse: the packed coarse classes the frontiers compare agree with the power-of-two classes they pack.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "impl/memory.h"
#include "spec/target.h"

using namespace kriek;

namespace {

MemoryUse random_use(std::mt19937_64& rng) {
  MemoryUse m;
  for (auto& b : m.bytes) {
    const int shift = static_cast<int>(rng() % 42);
    b = rng() % 4 == 0 ? 0 : static_cast<std::int64_t>(rng() % ((1ull << shift) + 1));
  }
  return m;
}

}  // namespace

TEST_CASE("coarse_key orders memory exactly like coarse()", "[impl][memory]") {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20000; ++i) {
    MemoryUse a = random_use(rng), b = random_use(rng);
    if (i % 3 == 0) b = a;
    if (i % 3 == 1) b[Level::L1] = a[Level::L1] + static_cast<std::int64_t>(rng() % 3);
    INFO(a << " vs " << b);
    CHECK(coarse_at_most(a.coarse_key(), b.coarse_key()) == a.coarse().at_most(b.coarse()));
    CHECK((a.coarse_key() == b.coarse_key()) == (a.coarse() == b.coarse()));
  }
  MemoryUse one;
  one[Level::VRF] = 1;
  MemoryUse two;
  two[Level::VRF] = 2;
  MemoryUse three;
  three[Level::VRF] = 3;
  CHECK(coarse_at_most(one.coarse_key(), two.coarse_key()));
  CHECK_FALSE(coarse_at_most(three.coarse_key(), two.coarse_key()));
  CHECK(coarse_at_most(MemoryUse{}.coarse_key(), one.coarse_key()));
}

TEST_CASE("a level's amounts up to its smallest class are one class, nothing is a class of its own",
          "[impl][memory]") {
  for (Level l : {Level::L2, Level::L1}) {
    const std::int64_t smallest = kSmallestClass[static_cast<std::size_t>(l)];
    INFO(level_name(l) << " smallest class " << smallest);
    REQUIRE(std::has_single_bit(static_cast<std::uint64_t>(smallest)));
    MemoryUse none, byte, full, above, double_;
    byte[l] = 1;
    full[l] = smallest;
    above[l] = smallest + 1;
    double_[l] = 2 * smallest;
    CHECK(byte.coarse_key() == full.coarse_key());
    CHECK(byte.coarse() == full.coarse());
    CHECK(byte.coarse()[l] == smallest);
    CHECK(none.coarse_key() != byte.coarse_key());
    CHECK(above.coarse_key() == double_.coarse_key());
    CHECK_FALSE(coarse_at_most(above.coarse_key(), full.coarse_key()));
  }
}

TEST_CASE("coarse_max, any_coarse_at_most, first_coarse_at_least agree with the classes", "[impl][memory]") {
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> keys;
  for (int i = 0; i < 20000; ++i) {
    const MemoryUse a = random_use(rng), b = random_use(rng);
    INFO(a << " vs " << b);
    CHECK(coarse_max(a.coarse_key(), b.coarse_key()) == a.max(b).coarse_key());
    if (i % 500 == 0) keys.clear();
    const std::uint64_t key = b.coarse_key();
    const bool any = std::any_of(keys.begin(), keys.end(), [&](std::uint64_t k) { return coarse_at_most(k, key); });
    CHECK(any_coarse_at_most(keys, key) == any);
    const auto first = std::find_if(keys.begin(), keys.end(), [&](std::uint64_t k) { return coarse_at_most(key, k); });
    CHECK(first_coarse_at_least(keys, key) == static_cast<std::size_t>(first - keys.begin()));
    keys.push_back(a.coarse_key());
  }
  CHECK_FALSE(any_coarse_at_most({}, 0));
}

TEST_CASE("default limits keep half of L2 for streams, --memory overrides them level by level", "[impl][memory]") {
  const Target t = named_target("avx512");
  const MemoryUse cap = capacities(t), def = default_limits(t);
  CHECK(def[Level::L2] == cap[Level::L2] * kDefaultL2Percent / 100);
  for (Level l : {Level::GL, Level::L1, Level::VRF, Level::RF}) CHECK(def[l] == cap[l]);
  const MemoryUse user = parse_memory_limits("L2=2M", def);
  CHECK(user[Level::L2] == 2 * 1024 * 1024);
  CHECK(user[Level::L1] == cap[Level::L1]);
}

TEST_CASE("memory limit errors (--memory) name the bad item", "[impl][memory]") {
  const MemoryUse def = default_limits(named_target("avx512"));
  CHECK_THROWS_WITH(parse_memory_limits("L2", def), Catch::Contains("'L2' is not LEVEL=BYTES"));
  CHECK_THROWS_WITH(parse_memory_limits("L9=1K", def), Catch::Contains("'L9=1K' names no level"));
  for (const char* bad : {"L2=", "L2=zz", "L2=-1K", "L2=1.5M", "L2=99999999999999999999K"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_memory_limits(bad, def), Catch::Contains(std::string("'") + bad + "' has no byte count"));
  }
  CHECK_THROWS_WITH(parse_memory_limits("L1=1K,L1=2K", def), Catch::Contains("'L1=2K' repeats level L1"));
  CHECK(parse_memory_limits("L1=1K,L2=1M", def)[Level::L1] == 1024);
}
