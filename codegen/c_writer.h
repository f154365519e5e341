// Text of the emitted C: lines with indentation by block depth, and fresh names for variables.
#pragma once

#include <string>

namespace kriek::codegen {

class CWriter {
 public:
  /// Appends one line at the current depth.
  void line(const std::string& text) {
    out_.append(static_cast<std::size_t>(2 * depth_), ' ');
    out_ += text;
    out_ += '\n';
  }
  /// Appends `header {` and indents.
  void open(const std::string& header) {
    line(header.empty() ? "{" : header + " {");
    ++depth_;
  }
  /// Closes the innermost block.
  void close() {
    --depth_;
    line("}");
  }
  /// A fresh name `<prefix><n>`, unique within this writer.
  std::string fresh(const std::string& prefix) { return prefix + std::to_string(next_++); }

  const std::string& text() const { return out_; }
  int depth() const { return depth_; }

 private:
  std::string out_;
  int depth_ = 0;
  int next_ = 0;
};

}  // namespace kriek::codegen
