// The one stable hash (spec/stable_hash.h) is pinned to fixed values (and so are the fingerprints built on it:
// target_test.cpp, test/impl/cost_test.cpp): a change here invalidates every table on disk, so it must come with a
// format or cost-model version bump.
#include <catch2/catch.hpp>

#include "spec/stable_hash.h"
#include "spec/target.h"

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
