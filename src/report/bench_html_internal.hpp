#pragma once
// What the two files of `bench --html` share (internal to src/report/): render_bench_html.cpp
// writes the page (skeleton, CSS, the device and results tables) and the values as people read
// them; bench_html_charts.cpp draws the SVG charts.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/bench.hpp"
#include "kb/messages.hpp"

namespace gpuvet::report::bench_html {

// ---- Values as people read them (render_bench_html.cpp) ----------------------------------------

// html_escape, shorter.
std::string esc(std::string_view s);

// A value that is there and finite.
bool usable(const std::optional<double>& v);

// A measured value as people read it: three or four significant digits.
std::string number(double v);

std::string with_unit(double v, const std::string& unit);

// 4096 -> "4 KiB", 1073741824 -> "1 GiB".
std::string bytes_label(double bytes);

// At most `limit` characters of UTF-8 text, cut at a character boundary, "…" when cut.
std::string clip(const std::string& s, std::size_t limit);

// The result's fraction of its peak, given or computed; nullopt when neither is usable.
std::optional<double> fraction_of_peak(const bench::Result& r);

std::string percent(double fraction);

// ---- The charts (bench_html_charts.cpp) ------------------------------------------------------

// Bandwidth against transfer size: one line per sweep, the peaks dashed, a legend.
std::string bandwidth_section(const std::vector<bench::Result>& results,
                              const kb::Messages& messages);

// The GEMM rates as bars against their peaks.
std::string gemm_section(const std::vector<bench::Result>& results, const kb::Messages& messages);

}  // namespace gpuvet::report::bench_html
