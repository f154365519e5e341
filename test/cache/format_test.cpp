// The format's building blocks: the stable hash is pinned to fixed values, the Spec encoding is injective on
// the test Specs, and every Action alternative round-trips through its tag.
#include <set>
#include <sstream>

#include <catch2/catch.hpp>

#include "cache/action_codec.h"
#include "cache/format.h"
#include "cache/stable_hash.h"
#include "random_table.h"

namespace kriek {
namespace {

TEST_CASE("stable_hash is pinned: a change here invalidates every table on disk", "[cache]") {
  // Values computed once by this implementation; they must never change without a format version bump.
  CHECK(stable_hash("", 0) == stable_hash(std::string_view{}));
  CHECK(stable_hash(std::string_view("kriek")) == 0xf3eb74cbcae404d0ull);
  CHECK(stable_hash(std::string_view("a longer input that spans several words")) == 0x370edb4e07a042e6ull);
  CHECK(stable_hash(std::string_view("kriek"), 1) != stable_hash(std::string_view("kriek")));
}

TEST_CASE("distinct Specs have distinct encodings and hashes; equal Specs equal ones", "[cache]") {
  const auto contents = test::random_contents(7, 0, 2000);
  std::set<std::string> encodings;
  std::set<std::uint64_t> hashes;
  for (const auto& c : contents) {
    const std::string bytes = spec_bytes(c.spec);
    CHECK(spec_from_bytes(bytes) == c.spec);
    encodings.insert(bytes);
    hashes.insert(stable_hash(bytes));
  }
  CHECK(encodings.size() == contents.size());
  CHECK(hashes.size() == contents.size());
  CHECK(spec_hash(contents[3].spec) == spec_hash(Spec(contents[3].spec)));
}

TEST_CASE("every Action alternative round-trips by its tag", "[cache]") {
  const std::vector<Action> actions = {
      TileOut{{32, 16}, true}, Split{64}, Slide{1, 8, Level::L1, Layout::blocked(1, 16)},
      MoveTo{2, Level::VRF, Layout::row_major(), 16}, ToAccum{}, Bufferize{1, Level::L2, Layout::col_major()},
      Split{1, 2}, ToMatmul{}, PadImage{Level::L2, Layout::row_major()}, Select{KernelKind::bcast_fma}};
  for (const Action& a : actions) {
    std::ostringstream out(std::ios::binary);
    {
      cereal::BinaryOutputArchive ar(out);
      save_action(ar, a);
    }
    std::istringstream in(out.str(), std::ios::binary);
    cereal::BinaryInputArchive ar(in);
    CHECK(load_action(ar) == a);
  }
}

TEST_CASE("an action's encoding starts with its own tag, not its position in the variant", "[cache]") {
  std::ostringstream out(std::ios::binary);
  {
    cereal::BinaryOutputArchive ar(out);
    save_action(ar, Select{KernelKind::vec_zero});
  }
  const std::string bytes = out.str();
  REQUIRE(bytes.size() >= 3);
  CHECK(bytes[0] == 7);  // Select's tag, little-endian u16
  CHECK(bytes[1] == 0);
  CHECK(bytes[2] == 2);  // version
}

TEST_CASE("an unknown action tag or version is a UserError", "[cache]") {
  for (auto [tag, version, message] : {std::tuple{std::uint16_t{99}, std::uint8_t{2}, "unknown tag 99"},
                                       std::tuple{std::uint16_t{1}, std::uint8_t{9}, "version 9"}}) {
    std::ostringstream out(std::ios::binary);
    {
      cereal::BinaryOutputArchive ar(out);
      ar(tag, version);
    }
    std::istringstream in(out.str(), std::ios::binary);
    cereal::BinaryInputArchive ar(in);
    CHECK_THROWS_WITH(load_action(ar), Catch::Contains(message) && Catch::Contains("rebuild the table"));
  }
}

TEST_CASE("records keep every decision", "[cache]") {
  for (const auto& c : test::random_contents(11, 0, 200)) {
    const std::string key = spec_bytes(c.spec);
    const std::string record = encode_record(key, c.frontier);
    CHECK(record_spec(record) == key);
    const Frontier back = decode_frontier(record);
    REQUIRE(back.entries.size() == c.frontier.entries.size());
    for (std::size_t i = 0; i < back.entries.size(); ++i) CHECK(back.entries[i] == c.frontier.entries[i]);
  }
}

TEST_CASE("the vocabulary schema names the enums it pins", "[cache]") {
  const std::string& s = vocabulary_schema();
  CHECK_THAT(s, Catch::Contains("matmul@0") && Catch::Contains("levels=GL@0,L2@1") &&
                    Catch::Contains("bcast_fma") && Catch::Contains("select@7"));
}

}  // namespace
}  // namespace kriek
