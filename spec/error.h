// The error channels of kriek: UserError for bad input a person can fix (the CLI prints its one-line message and
// exits 1), and KRIEK_ASSERT for internal bugs (aborts with file:line and a message in every build).
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace kriek {

/// Bad input: spec text, an invalid Spec, infeasible limits, a stale or foreign table. The message is one line
/// and names the offending values.
class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& message) : std::runtime_error(message) {}
};

namespace detail {
[[noreturn]] void assert_failed(const char* file, int line, const char* condition, const std::string& message);

/// Concatenates its arguments with operator<<.
template <class... Args>
std::string concat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}
}  // namespace detail

/// Throws a UserError whose message is the concatenation of the arguments.
template <class... Args>
[[noreturn]] void user_error(const Args&... args) {
  throw UserError(detail::concat(args...));
}

}  // namespace kriek

/// Internal invariant: on failure prints file:line, the condition and the streamed message, then aborts.
#define KRIEK_ASSERT(cond, ...)                                                                  \
  do {                                                                                           \
    if (!(cond)) ::kriek::detail::assert_failed(__FILE__, __LINE__, #cond,                       \
                                                ::kriek::detail::concat("" __VA_OPT__(, ) __VA_ARGS__)); \
  } while (0)
