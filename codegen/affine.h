// Affine index expressions of the emitted C: a constant plus integer multiples of loop variables. Views keep
// their origins in this form so that offsets of register-held tiles fold to constants (the generator unrolls
// loops over them) while memory offsets stay cheap expressions in the loop variables.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kriek::codegen {

class Affine {
 public:
  Affine() = default;
  /*implicit*/ Affine(std::int64_t constant) : constant_(constant) {}
  /// 1 * `variable`.
  static Affine variable(std::string name);

  bool is_constant() const { return terms_.empty(); }
  std::int64_t constant() const { return constant_; }
  const std::vector<std::pair<std::string, std::int64_t>>& terms() const { return terms_; }
  /// The coefficient of `variable` (0 without a term in it).
  std::int64_t coefficient(const std::string& variable) const;
  /// True when the constant and every coefficient are multiples of `d`.
  bool divisible_by(std::int64_t d) const;
  /// Exact division; asserts divisible_by(d).
  Affine divided_by(std::int64_t d) const;

  Affine operator+(const Affine& other) const;
  Affine operator-(const Affine& other) const;
  Affine operator*(std::int64_t k) const;

  /// C text, e.g. `3*i0 + 64*k1 + 5` or `0`; variables in first-added order.
  std::string text() const;

  friend bool operator==(const Affine&, const Affine&) = default;

 private:
  std::int64_t constant_ = 0;
  std::vector<std::pair<std::string, std::int64_t>> terms_;  ///< no zero coefficients, each variable once
};

}  // namespace kriek::codegen
