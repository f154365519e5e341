// The live status line (see progress_line.h).
#include "tools/progress_line.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

namespace kriek::tools {
namespace {

std::mutex line_mutex;                // guards every line's links, the drawing and writes above a line
ProgressLine* outermost = nullptr;    // the line alive at the top, if any

}  // namespace

ProgressLine::ProgressLine(std::function<std::string()> render) : render_(std::move(render)) {
  std::lock_guard<std::mutex> lock(line_mutex);
  if (outermost) {
    ProgressLine* last = outermost;
    while (last->inner_) last = last->inner_;
    last->inner_ = this;
    outer_ = last;
    return;
  }
  if (!isatty(STDERR_FILENO)) return;
  if (const char* ms = std::getenv("KRIEK_PROGRESS_MS")) {
    char* end = nullptr;
    const long v = std::strtol(ms, &end, 10);
    if (end != ms && *end == '\0' && v > 0 && v <= 60000) {
      period_ = std::chrono::milliseconds(v);
    } else {
      std::cerr << "kriek: note: KRIEK_PROGRESS_MS='" << ms << "' is not a period of 1 to 60000 ms; redrawing every "
                << kDefaultPeriod.count() << " ms\n";
    }
  }
  outermost = this;
  thread_ = std::thread([this] { loop(); });
}

ProgressLine::~ProgressLine() {
  {
    std::lock_guard<std::mutex> lock(line_mutex);
    done_ = true;
    if (outer_) outer_->inner_ = inner_;
    if (inner_) inner_->outer_ = outer_;
    if (outermost == this) outermost = nullptr;
  }
  wake_.notify_all();
  if (thread_.joinable()) {
    thread_.join();
    std::cerr << "\r\033[K" << std::flush;
  }
}

void ProgressLine::print(const std::string& text) {
  std::lock_guard<std::mutex> lock(line_mutex);
  if (outermost) std::cerr << "\r\033[K";
  std::cerr << text << std::flush;
}

std::string ProgressLine::bar(double fraction, int width) {
  const int full = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * width + 0.5);
  std::string out;
  for (int i = 0; i < width; ++i) out += i < full ? "\u2588" : "\u2591";
  return out;
}

std::string ProgressLine::render_all() {
  std::string out = render_();
  for (ProgressLine* part = inner_; part; part = part->inner_) out += " | " + part->render_();
  return out;
}

void ProgressLine::loop() {
  std::unique_lock<std::mutex> lock(line_mutex);
  while (!wake_.wait_for(lock, period_, [this] { return done_; })) {
    std::cerr << "\r" << render_all() << "\033[K" << std::flush;
  }
}

}  // namespace kriek::tools
