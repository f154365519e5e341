// One live status line on stderr when it is a terminal (nothing otherwise): rewritten every half second from a
// render function (KRIEK_PROGRESS_MS sets another period, e.g. for tests), cleared at the end. Lines nest: one
// made while another is alive renders as a part of the outer one's line (`kriek library`'s bar, then the running
// search's counters), so a terminal never shows two lines fighting over one row.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace kriek::tools {

class ProgressLine {
 public:
  /// Starts the line (a thread redrawing it) when stderr is a terminal and no other line is alive; else, when one
  /// is, joins it as its last part. `render` is called from the drawing thread.
  explicit ProgressLine(std::function<std::string()> render);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// Writes `text` (whole lines) to stderr above the live line, which the next redraw puts back.
  void print(const std::string& text);

  /// `fraction` (clamped to [0, 1]) as `width` cells, full ones first: "████░░░░".
  static std::string bar(double fraction, int width);

 private:
  void loop();
  std::string render_all();

  static constexpr std::chrono::milliseconds kDefaultPeriod{500};
  std::chrono::milliseconds period_ = kDefaultPeriod;
  std::function<std::string()> render_;
  ProgressLine* outer_ = nullptr;  ///< the line this one is a part of
  ProgressLine* inner_ = nullptr;  ///< the part drawn after this one's text
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace kriek::tools
