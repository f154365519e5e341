// Golden files: exact expected text under test/<folder>/golden/<name>.txt; UPDATE_GOLDEN=1 rewrites them.
#pragma once

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace kriek::testing {

inline void check_golden(const std::string& folder, const std::string& name, const std::string& text) {
  const std::string path = std::string(KRIEK_SOURCE_DIR) + "/test/" + folder + "/golden/" + name + ".txt";
  if (std::getenv("UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << text;
    WARN("rewrote " << path);
    return;
  }
  std::ifstream in(path);
  INFO("golden file " << path << " (UPDATE_GOLDEN=1 rewrites it)");
  REQUIRE(in.good());
  std::stringstream expected;
  expected << in.rdbuf();
  CHECK(text == expected.str());
}

}  // namespace kriek::testing
