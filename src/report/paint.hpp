#pragma once
// Colour for terminal output, applied only when enabled (a terminal, no NO_COLOR, no --no-color).
#include <fmt/color.h>
#include <fmt/format.h>

#include <string>

namespace gpuvet::report {

class Painter {
 public:
  explicit Painter(bool enabled) : enabled_(enabled) {}
  std::string operator()(const std::string& s, fmt::text_style style) const {
    return enabled_ ? fmt::format(style, "{}", s) : s;
  }

 private:
  bool enabled_;
};

}  // namespace gpuvet::report
