// The format's building blocks: the Spec encoding is injective on the test Specs, and every Action alternative
// round-trips through its tag (the stable hash itself is pinned in test/spec/stable_hash_test.cpp).
#include <set>
#include <sstream>

#include <catch2/catch.hpp>

#include "cache/action_codec.h"
#include "cache/format.h"
#include "spec/stable_hash.h"
#include "cache/synthetic_table.h"

namespace kriek {
namespace {

TEST_CASE("distinct Specs have distinct encodings and hashes, equal Specs equal ones", "[cache]") {
  const auto contents = synthetic_contents(7, 0, 2000);
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
      MoveTo{2, Level::VRF, Layout::row_major(), 16}, MoveTo{0, Level::L2, Layout::row_major(), 0, true}, ToAccum{},
      Bufferize{1, Level::L2, Layout::col_major()},
      Split{1, 2}, ToMatmul{}, PadImage{Level::L2, Layout::row_major()}, Select{KernelKind::bcast_fma}, Flatten{}};
  for (const Action& a : actions) {
    std::string bytes;
    ByteWriter writer(bytes);
    save_action(writer, a);
    std::istringstream in(bytes, std::ios::binary);
    cereal::BinaryInputArchive ar(in);
    CHECK(load_action(ar) == a);
    CHECK(in.peek() == std::char_traits<char>::eof());  // it read every byte written
  }
}

TEST_CASE("an action's encoding starts with its own tag, not its position in the variant", "[cache]") {
  std::string bytes;
  ByteWriter writer(bytes);
  save_action(writer, Select{KernelKind::vec_zero});
  REQUIRE(bytes.size() >= 3);
  CHECK(bytes[0] == 7);  // Select's tag, little-endian u16
  CHECK(bytes[1] == 0);
  CHECK(bytes[2] == 3);  // version
}

TEST_CASE("an unknown action tag or version is a UserError", "[cache]") {
  for (auto [tag, version, message] : {std::tuple{std::uint16_t{99}, std::uint8_t{3}, "unknown tag 99"},
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
  for (const auto& c : synthetic_contents(11, 0, 200)) {
    const std::string key = spec_bytes(c.spec);
    const std::string record = encode_record(key, c.frontier);
    CHECK(record_spec(record) == key);
    const Frontier back = decode_frontier(record);
    REQUIRE(back.entries.size() == c.frontier.entries.size());
    for (std::size_t i = 0; i < back.entries.size(); ++i) CHECK(back.entries[i] == c.frontier.entries[i]);
  }
}

TEST_CASE("varints round-trip at every width and a cut one is a UserError", "[cache]") {
  for (std::uint64_t v : {std::uint64_t{0}, std::uint64_t{127}, std::uint64_t{128}, std::uint64_t{1} << 35,
                          std::uint64_t{1} << 63, ~std::uint64_t{0}}) {
    std::string bytes;
    put_varint(bytes, v);
    std::size_t at = 0;
    CHECK(get_varint(bytes, at) == v);
    CHECK(at == bytes.size());
    std::size_t cut_at = 0;
    if (bytes.size() > 1) CHECK_THROWS_AS(get_varint(bytes.substr(0, bytes.size() - 1), cut_at), UserError);
  }
}

TEST_CASE("records keep extreme costs and peaks, in any order, exactly", "[cache]") {
  Frontier f;
  for (Cost cost : {~Cost{0}, Cost{0}, Cost{1} << 62, Cost{5}}) {
    FrontierEntry e;
    e.cost = cost;
    e.peak[Level::GL] = std::int64_t{1} << 40;
    e.peak[Level::VRF] = 64;
    e.action = Split{static_cast<std::int64_t>(cost % 1000 + 1)};
    e.children = {0, 300, 70000};
    f.entries.push_back(e);
  }
  const std::string record = encode_record("spec", f);
  const Frontier back = decode_frontier(record);
  REQUIRE(back.entries.size() == f.entries.size());
  for (std::size_t i = 0; i < f.entries.size(); ++i) CHECK(back.entries[i] == f.entries[i]);
  // Every cut of the record is an error, never a crash or a wrong frontier.
  for (std::size_t n = 0; n < record.size(); ++n) CHECK_THROWS_AS(decode_frontier(record.substr(0, n)), UserError);
}

TEST_CASE("the vocabulary schema names the enums it pins", "[cache]") {
  const std::string& s = vocabulary_schema();
  CHECK_THAT(s, Catch::Contains("matmul@0") && Catch::Contains("levels=GL@0,L2@1") &&
                    Catch::Contains("bcast_fma") && Catch::Contains("select@7"));
}

}  // namespace
}  // namespace kriek
