// The one stable hash (spec/stable_hash.h) is pinned to fixed values (and so are the fingerprints built on it:
// target_test.cpp, test/impl/cost_test.cpp): a change here invalidates every table on disk, so it must come with a
// format or cost-model version bump.
#include <sstream>

#include <catch2/catch.hpp>
#include <cereal/archives/binary.hpp>

#include "spec/stable_hash.h"
#include "spec/target.h"
#include "spec/text.h"
#include "support/random_spec.h"

using namespace kriek;

TEST_CASE("stable_hash is pinned: a change here invalidates every table on disk", "[spec][hash]") {
  // Values computed once by this implementation; they must never change without a format version bump.
  CHECK(stable_hash("", 0) == stable_hash(std::string_view{}));
  CHECK(stable_hash(std::string_view("kriek")) == 0xf3eb74cbcae404d0ull);
  CHECK(stable_hash(std::string_view("a longer input that spans several words")) == 0x370edb4e07a042e6ull);
  CHECK(stable_hash(std::string_view("kriek"), 1) != stable_hash(std::string_view("kriek")));
}

TEST_CASE("StableHasher digests numbers and strings through stable_hash", "[spec][hash]") {
  // Eight little-endian bytes per number; a string's length before its bytes.
  CHECK(StableHasher().add(0x0102030405060708ull).value() ==
        stable_hash(std::string_view("\x08\x07\x06\x05\x04\x03\x02\x01", 8)));
  CHECK(StableHasher().add("ab").value() == stable_hash(std::string_view("\x02\0\0\0\0\0\0\0ab", 10)));
  // The length keeps ("ab", "c") and ("a", "bc") apart.
  CHECK(StableHasher().add("ab").add("c").value() != StableHasher().add("a").add("bc").value());
}

namespace {

std::string cereal_bytes(const Spec& spec) {
  std::ostringstream out(std::ios::binary);
  {
    cereal::BinaryOutputArchive ar(out);
    ar(spec);
  }
  return std::move(out).str();
}

}  // namespace

TEST_CASE("spec_bytes are cereal's binary encoding, so table keys keep their hashes", "[spec][hash]") {
  const std::uint64_t seed = testing::test_seed(20261123);
  INFO("seed " << seed << " (KRIEK_SEED replays it)");
  std::mt19937_64 rng(seed);
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  for (int i = 0; i < 400; ++i) {
    Spec spec = testing::random_spec(rng, i % testing::kOpKinds, 300);
    // Every field away from its default somewhere: levels, layouts, vector sizes, flags, dtypes.
    for (TensorSpec& t : spec.operands) {
      t.level = kAllLevels[static_cast<std::size_t>(pick(kLevelCount))];
      t.dtype = kAllDtypes[static_cast<std::size_t>(pick(static_cast<int>(kAllDtypes.size())))];
      if (pick(3) == 0) t.layout = Layout::col_major();
      if (pick(3) == 0) t.layout = Layout::blocked(static_cast<std::uint8_t>(pick(2)), 8u << pick(3));
      t.vector_size = t.level == Level::VRF ? 8u << pick(2) : 0;
      t.aligned = pick(2) == 0;
      t.contiguous = pick(2) == 0;
      t.run_dims = static_cast<std::uint8_t>(1 + pick(3));
      t.shared = pick(2) == 0;
    }
    spec.serial_only = pick(2) == 0;
    INFO(spec_text(spec));
    REQUIRE(spec_bytes(spec) == cereal_bytes(spec));
  }
  // One key pinned: a change of the encoding (or of the hash) changes every key of every table on disk (table
  // format 9 added TensorSpec::run_dims).
  const Spec pinned{Matmul{}, {testing::dense({64, 32}), testing::dense({32, 16}), testing::dense({64, 16})}};
  CHECK(stable_hash(cereal_bytes(pinned)) == 0x99ee09370ab558ceull);
  CHECK(spec_hash(pinned) == 0x99ee09370ab558ceull);
}
