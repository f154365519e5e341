// The `overloaded{...}` idiom for std::visit over a set of lambdas.
#pragma once

namespace kriek {

template <class... Fs>
struct overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
overloaded(Fs...) -> overloaded<Fs...>;

}  // namespace kriek
