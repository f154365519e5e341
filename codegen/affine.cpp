// Arithmetic and printing of affine index expressions.
#include "codegen/affine.h"

#include "spec/error.h"

namespace kriek::codegen {

Affine Affine::variable(std::string name) {
  Affine a;
  a.terms_.emplace_back(std::move(name), 1);
  return a;
}

std::int64_t Affine::coefficient(const std::string& variable) const {
  for (const auto& [name, k] : terms_) {
    if (name == variable) return k;
  }
  return 0;
}

bool Affine::divisible_by(std::int64_t d) const {
  if (constant_ % d != 0) return false;
  for (const auto& [name, k] : terms_) {
    if (k % d != 0) return false;
  }
  return true;
}

Affine Affine::divided_by(std::int64_t d) const {
  KRIEK_ASSERT(divisible_by(d), "inexact division of ", text(), " by ", d);
  Affine out = *this;
  out.constant_ /= d;
  for (auto& term : out.terms_) term.second /= d;
  return out;
}

Affine Affine::operator+(const Affine& other) const {
  Affine out = *this;
  out.constant_ += other.constant_;
  for (const auto& [name, k] : other.terms_) {
    bool merged = false;
    for (auto it = out.terms_.begin(); it != out.terms_.end(); ++it) {
      if (it->first != name) continue;
      it->second += k;
      if (it->second == 0) out.terms_.erase(it);
      merged = true;
      break;
    }
    if (!merged) out.terms_.emplace_back(name, k);
  }
  return out;
}

Affine Affine::operator-(const Affine& other) const { return *this + other * -1; }

Affine Affine::operator*(std::int64_t k) const {
  if (k == 0) return Affine{};
  Affine out = *this;
  out.constant_ *= k;
  for (auto& term : out.terms_) term.second *= k;
  return out;
}

std::string Affine::text() const {
  std::string out;
  for (const auto& [name, k] : terms_) {
    if (!out.empty()) out += k < 0 ? " - " : " + ";
    else if (k < 0) out += "-";
    const std::int64_t magnitude = k < 0 ? -k : k;
    if (magnitude != 1) out += std::to_string(magnitude) + "*";
    out += name;
  }
  if (out.empty()) return std::to_string(constant_);
  if (constant_ > 0) out += " + " + std::to_string(constant_);
  if (constant_ < 0) out += " - " + std::to_string(-constant_);
  return out;
}

}  // namespace kriek::codegen
