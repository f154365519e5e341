// Shape: a std::vector<std::int64_t>'s interface over inline storage, written byte for byte as cereal and
// ByteWriter write such a vector (so stable hashes and tables on disk do not change with the representation).
#include <sstream>
#include <vector>

#include <catch2/catch.hpp>
#include <cereal/archives/binary.hpp>
#include <cereal/archives/json.hpp>
#include <cereal/types/vector.hpp>

#include "spec/byte_writer.h"
#include "spec/shape.h"

using namespace kriek;

namespace {

template <class T>
std::string cereal_bytes(const T& value) {
  std::ostringstream out(std::ios::binary);
  {
    cereal::BinaryOutputArchive ar(out);
    ar(value);
  }
  return out.str();
}

}  // namespace

TEST_CASE("Shape edits as a vector of extents does", "[spec][shape]") {
  Shape s{4, 5};
  s.insert(s.begin(), 3);
  s.insert(s.end(), {6, 7});
  CHECK(s == Shape{3, 4, 5, 6, 7});
  s.erase(s.begin() + 1);
  CHECK(s == Shape{3, 5, 6, 7});
  s.erase(s.begin(), s.begin() + 2);
  CHECK(s == Shape{6, 7});
  s.resize(4, 1);
  CHECK(s == Shape{6, 7, 1, 1});
  s.pop_back();
  CHECK(s.back() == 1);
  CHECK(Shape(3, 2) == Shape{2, 2, 2});
  const std::vector<std::int64_t> v{9, 8};
  CHECK(Shape(v.begin(), v.end()) == Shape{9, 8});
  // Order and equality look at the extents only, not at what lies beyond them.
  Shape longer{1, 2, 3};
  longer.pop_back();
  CHECK(longer == Shape{1, 2});
  CHECK(Shape{1, 2} < Shape{1, 2, 0});
  CHECK(Shape{1, 3} > Shape{1, 2, 9});
  CHECK(hash_value(longer) == hash_value(Shape{1, 2}));
  CHECK(Shape(kMaxViewRank, 1).size() == Shape::capacity());
}

TEST_CASE("Shape serializes exactly as a std::vector of its extents", "[spec][shape]") {
  for (const Shape& s : {Shape{}, Shape{7}, Shape{1, 56, 56, 64}, Shape(kMaxViewRank, 3)}) {
    const std::vector<std::int64_t> v(s.begin(), s.end());
    const std::string bytes = cereal_bytes(s);
    CHECK(bytes == cereal_bytes(v));
    std::string written;
    ByteWriter writer(written);
    writer(s);
    CHECK(written == bytes);
    Shape back{99};
    std::istringstream in(bytes, std::ios::binary);
    {
      cereal::BinaryInputArchive ar(in);
      ar(back);
    }
    CHECK(back == s);
  }
  // Text archives (cereal's JSON) take the elementwise path.
  std::ostringstream json;
  {
    cereal::JSONOutputArchive ar(json);
    ar(cereal::make_nvp("s", Shape{2, 3}));
  }
  Shape back;
  std::istringstream in(json.str());
  {
    cereal::JSONInputArchive ar(in);
    ar(cereal::make_nvp("s", back));
  }
  CHECK(back == Shape{2, 3});
}

TEST_CASE("A stored shape of a rank beyond Shape's capacity is a read error, not an overflow", "[spec][shape]") {
  const std::vector<std::int64_t> v(kMaxViewRank + 1, 2);
  std::istringstream in(cereal_bytes(v), std::ios::binary);
  cereal::BinaryInputArchive ar(in);
  Shape s;
  CHECK_THROWS_AS(ar(s), cereal::Exception);
}
