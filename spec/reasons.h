// Quiet reasons: a thread's switch that lets rule checks skip spelling out why they fail. The search asks each
// Sched operator and kernel rule only whether it applies (enumerate_actions, kernels_for), millions of times;
// formatting the reason of every failing rule (operand names, shapes, an ostringstream each) cost it about a
// tenth of its time. The REPL, the errors and the tests ask with reasons.
#pragma once

namespace kriek {

namespace detail {
inline thread_local bool quiet_reasons = false;
}  // namespace detail

/// True while a QuietReasons is alive on this thread: a failing rule may return an empty reason.
inline bool reasons_quiet() { return detail::quiet_reasons; }

/// Makes failing rules on this thread return empty reasons for its lifetime (nests).
class QuietReasons {
 public:
  QuietReasons() : previous_(detail::quiet_reasons) { detail::quiet_reasons = true; }
  ~QuietReasons() { detail::quiet_reasons = previous_; }
  QuietReasons(const QuietReasons&) = delete;
  QuietReasons& operator=(const QuietReasons&) = delete;

 private:
  bool previous_;
};

}  // namespace kriek
