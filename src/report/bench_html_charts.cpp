// `bench --html`: the charts, drawn here as inline SVG: bandwidth against transfer size (lines,
// log2 size axis, linear or log10 rate axis) and the GEMM rates as bars against their peaks.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/bench_html_internal.hpp"

namespace gpuvet::report::bench_html {

namespace {

// "gemm_fp32 peak: 989 TFLOP/s", for a title.
std::string peak_of(const std::string& name, const std::string& value,
                    const kb::Messages& messages) {
  return messages.text("bench.html.peak_of", {{"name", name}, {"value", value}});
}

// The page draws its own charts; these are the SVG canvases, in CSS pixels.
constexpr double kLineWidth = 900, kLineHeight = 440;
constexpr double kLineLeft = 72, kLineRight = 210, kLineTop = 20, kLineBottom = 56;
constexpr double kBarWidth = 900, kBarRow = 46;
constexpr double kBarLeft = 180, kBarRight = 240, kBarTop = 12, kBarBottom = 40;
// The sweep's usual range: 4 KiB (2^12) to 1 GiB (2^30).
constexpr int kSweepFrom = 12, kSweepTo = 30;
// The bandwidth chart's plot area.
constexpr double kPlotLeft = kLineLeft, kPlotRight = kLineWidth - kLineRight;
constexpr double kPlotTop = kLineTop, kPlotBottom = kLineHeight - kLineBottom;

// An SVG coordinate: one decimal, never NaN or infinite.
std::string coord(double v) {
  return fmt::format("{:.1f}", std::isfinite(v) ? v : 0.0);
}

// A round step (1, 2 or 5 times a power of ten) near `raw`.
double nice_step(double raw) {
  if (!std::isfinite(raw) || raw <= 0) return 1;
  const double base = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / base;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * base;
}

std::string tick_label(double v) {
  return fmt::format("{:g}", v);
}

std::string series_color(const std::string& name, size_t& next_other) {
  if (name == "h2d_pinned") return "#1f6fb4";
  if (name == "h2d_pageable") return "#7ab8e6";
  if (name == "d2h_pinned") return "#d9530f";
  if (name == "d2h_pageable") return "#f5a25d";
  if (name == "d2d_copy") return "#2e9e44";
  static constexpr const char* others[] = {"#7b52ab", "#8c564b", "#d6479b",
                                           "#6f6f6f", "#a5a51a", "#139fb0"};
  return others[next_other++ % std::size(others)];
}

// Maps a value to a pixel along one axis, linearly or in log space; never NaN or infinite.
struct Scale {
  double lo = 0, hi = 1;    // in axis space (log2 or log10 when `log`)
  double from = 0, to = 1;  // pixels
  bool log = false;
  int base = 10;

  double axis(double v) const {
    if (!log) return v;
    return base == 2 ? std::log2(v) : std::log10(v);
  }
  double operator()(double v) const {
    const double a = axis(v);
    double t = (std::isfinite(a) && hi > lo) ? (a - lo) / (hi - lo) : 0;
    t = std::clamp(t, 0.0, 1.0);
    return from + t * (to - from);
  }
};

// ---------------------------------------------------------------- bandwidth chart

struct Series {
  const bench::Result* result = nullptr;
  std::string color;
  std::vector<bench::Point> points;  // drawable ones, by transfer size
};

// The results that have a sweep, each with its colour and its drawable points.
std::vector<Series> sweeps(const std::vector<bench::Result>& results) {
  std::vector<Series> series;
  size_t next_other = 0;
  for (const auto& r : results) {
    if (r.series.empty()) continue;
    Series s{&r, series_color(r.name, next_other), {}};
    for (const auto& p : r.series)
      if (std::isfinite(p.x) && std::isfinite(p.y) && p.x > 0) s.points.push_back(p);
    std::sort(s.points.begin(), s.points.end(),
              [](const bench::Point& a, const bench::Point& b) { return a.x < b.x; });
    series.push_back(std::move(s));
  }
  return series;
}

// x: log2 of the transfer size, at least 4 KiB .. 1 GiB, wider when the data is.
struct SizeAxis {
  int lo = kSweepFrom, hi = kSweepTo;  // powers of two
  Scale scale;
};

SizeAxis size_axis(const std::vector<Series>& series) {
  int x_lo = kSweepFrom, x_hi = kSweepTo;
  for (const auto& s : series) {
    for (const auto& p : s.points) {
      x_lo = std::min(x_lo, static_cast<int>(std::floor(std::log2(p.x))));
      x_hi = std::max(x_hi, static_cast<int>(std::ceil(std::log2(p.x))));
    }
  }
  x_lo = std::max(x_lo, 0);
  x_hi = std::min(std::max(x_hi, x_lo + 1), 80);
  return {x_lo, x_hi, Scale{double(x_lo), double(x_hi), kPlotLeft, kPlotRight, true, 2}};
}

// y: the rate axis with its ticks (value, labelled).
struct RateAxis {
  Scale scale;
  bool log = false;
  std::vector<std::pair<double, bool>> ticks;
};

// Every decade (every few when there are many), with 2 and 5 between when there is room.
void decade_ticks(RateAxis& y, double y_min_positive, double y_max) {
  int lo = static_cast<int>(std::floor(std::log10(y_min_positive)));
  int hi = static_cast<int>(std::ceil(std::log10(y_max)));
  if (hi <= lo) hi = lo + 1;
  const int decade_step = std::max(1, (hi - lo + 7) / 8);
  hi = lo + (hi - lo + decade_step - 1) / decade_step * decade_step;
  y.scale.lo = lo;
  y.scale.hi = hi;
  const bool label_minor = hi - lo <= 3;
  for (int e = lo; e <= hi; e += decade_step) {
    const double decade = std::pow(10.0, e);
    if (!std::isfinite(decade) || decade == 0) continue;
    y.ticks.emplace_back(decade, true);
    if (e == hi || decade_step > 1) continue;
    for (int m : {2, 5})
      y.ticks.emplace_back(m * decade, label_minor);
  }
}

// Round steps from zero up to the largest value.
void linear_ticks(RateAxis& y, double y_max) {
  const double top_value = y_max > 0 ? y_max : 1;
  const double step = nice_step(top_value / 5);
  const int steps = std::max(1, static_cast<int>(std::ceil(top_value / step - 1e-9)));
  y.scale.hi = steps * step;
  for (int i = 0; i <= steps; ++i)
    y.ticks.emplace_back(i * step, true);
}

// Linear from zero, or log10 when the series' maxima lie more than ten times apart (device
// copies next to PCIe transfers) so that the slow ones do not lie flat on the axis.
RateAxis rate_axis(const std::vector<Series>& series) {
  double y_max = 0, y_min_positive = INFINITY, max_lo = INFINITY, max_hi = 0;
  for (const auto& s : series) {
    double series_max = 0;
    for (const auto& p : s.points) {
      y_max = std::max(y_max, p.y);
      series_max = std::max(series_max, p.y);
      if (p.y > 0) y_min_positive = std::min(y_min_positive, p.y);
    }
    if (usable(s.result->peak) && *s.result->peak > 0) {
      y_max = std::max(y_max, *s.result->peak);
      y_min_positive = std::min(y_min_positive, *s.result->peak);
    }
    if (series_max > 0) {
      max_lo = std::min(max_lo, series_max);
      max_hi = std::max(max_hi, series_max);
    }
  }
  const bool y_log = max_hi > 0 && max_lo > 0 && max_hi / max_lo > 10;
  RateAxis y{Scale{0, 1, kPlotBottom, kPlotTop, y_log, 10}, y_log, {}};
  if (y_log) {
    decade_ticks(y, y_min_positive, y_max);
  } else {
    linear_ticks(y, y_max);
  }
  return y;
}

// The grid, the axes, their tick labels and their titles.
std::string line_frame(const SizeAxis& x, const RateAxis& y, const kb::Messages& messages) {
  std::string out = "<g class=\"grid\">\n";
  const int x_step = std::max(1, static_cast<int>(std::ceil((x.hi - x.lo) / 10.0)));
  for (int e = x.lo; e <= x.hi; e += x_step) {
    const double px = x.scale(std::ldexp(1.0, e));
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", coord(px),
                       coord(kPlotTop), coord(kPlotBottom));
  }
  for (const auto& [value, labelled] : y.ticks) {
    const double py = y.scale(value);
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"{}/>\n", coord(kPlotLeft),
                       coord(py), coord(kPlotRight), coord(py), labelled ? "" : " class=\"minor\"");
  }
  out += "</g>\n<g class=\"axis\">\n";
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", coord(kPlotLeft),
                     coord(kPlotBottom), coord(kPlotRight));
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", coord(kPlotLeft),
                     coord(kPlotTop), coord(kPlotBottom));
  for (int e = x.lo; e <= x.hi; e += x_step) {
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                       coord(x.scale(std::ldexp(1.0, e))), coord(kPlotBottom + 18),
                       esc(bytes_label(std::ldexp(1.0, e))));
  }
  for (const auto& [value, labelled] : y.ticks) {
    if (!labelled) continue;
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
                       coord(kPlotLeft - 8), coord(y.scale(value) + 4), esc(tick_label(value)));
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     coord((kPlotLeft + kPlotRight) / 2), coord(kPlotBottom + 42),
                     esc(messages.text("bench.html.transfer_size")));
  out += fmt::format(
      "<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" transform=\"rotate(-90 {0} {1})\">"
      "{2}</text>\n",
      coord(18), coord((kPlotTop + kPlotBottom) / 2),
      y.log ? esc(messages.text("bench.html.rate_log_scale", {{"unit", "GB/s"}})) : "GB/s");
  return out + "</g>\n";
}

// The peaks as dashed lines in their series' colours; one label per distinct peak.
std::string peak_lines(const std::vector<Series>& series, const Scale& y,
                       const kb::Messages& messages) {
  std::string out;
  std::vector<std::string> peak_labels;
  for (const auto& s : series) {
    const bench::Result& r = *s.result;
    if (!usable(r.peak) || *r.peak <= 0) continue;
    const double py = y(*r.peak);
    out += fmt::format(
        "<line class=\"peak\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\">"
        "<title>{}</title></line>\n",
        coord(kPlotLeft), coord(py), coord(kPlotRight), coord(py), s.color,
        esc(peak_of(r.name, with_unit(*r.peak, r.unit.empty() ? "GB/s" : r.unit), messages)));
    const std::string label = messages.text(
        "bench.html.peak", {{"value", with_unit(*r.peak, r.unit.empty() ? "GB/s" : r.unit)}});
    if (std::find(peak_labels.begin(), peak_labels.end(), label) != peak_labels.end()) continue;
    peak_labels.push_back(label);
    out += fmt::format(
        "<text class=\"peak-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\" "
        "fill=\"{}\">{}</text>\n",
        coord(kPlotRight - 4), coord(py - 5), s.color, esc(label));
  }
  return out;
}

// Each sweep as a line through its points (on a log axis, the positive ones) and a marker at
// each point.
std::string sweep_lines(const std::vector<Series>& series, const Scale& x, const RateAxis& y) {
  std::string out;
  for (const auto& s : series) {
    const bench::Result& r = *s.result;
    const std::string unit = r.unit.empty() ? "GB/s" : r.unit;
    out += fmt::format("<g class=\"series\" stroke=\"{0}\" fill=\"{0}\">\n", s.color);
    std::vector<const bench::Point*> drawn;
    for (const auto& p : s.points)
      if (!y.log || p.y > 0) drawn.push_back(&p);
    if (drawn.size() >= 2) {
      std::string points;
      for (const auto* p : drawn)
        points += (points.empty() ? "" : " ") + coord(x(p->x)) + "," + coord(y.scale(p->y));
      out += "<polyline fill=\"none\" points=\"" + points + "\"><title>" + esc(r.name) +
             "</title></polyline>\n";
    }
    for (const auto* p : drawn) {
      out +=
          fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\"><title>{}: {} → {}</title></circle>\n",
                      coord(x(p->x)), coord(y.scale(p->y)), esc(r.name), esc(bytes_label(p->x)),
                      esc(with_unit(p->y, unit)));
    }
    out += "</g>\n";
  }
  return out;
}

// The legend, right of the plot.
std::string line_legend(const std::vector<Series>& series, const kb::Messages& messages) {
  std::string out = "<g class=\"legend\">\n";
  double ly = kPlotTop + 10;
  const double lx = kPlotRight + 20;
  bool any_peak = false;
  for (const auto& s : series) {
    const bench::Result& r = *s.result;
    any_peak = any_peak || (usable(r.peak) && *r.peak > 0);
    out += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"3\"/>\n",
        coord(lx), coord(ly), coord(lx + 22), coord(ly), s.color);
    out += fmt::format("<text x=\"{}\" y=\"{}\"><title>{}</title>{}{}</text>\n", coord(lx + 30),
                       coord(ly + 4), esc(r.name), esc(clip(r.name, 20)),
                       s.points.empty() ? esc(messages.text("bench.html.no_data")) : "");
    ly += 22;
  }
  if (any_peak) {
    out += fmt::format(
        "<line class=\"peak\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#555\"/>\n",
        coord(lx), coord(ly), coord(lx + 22), coord(ly));
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", coord(lx + 30), coord(ly + 4),
                       esc(messages.text("bench.html.peak_legend")));
  }
  return out + "</g>\n";
}

// ---------------------------------------------------------------- GEMM chart

// The bars' plot area, left to right; its height grows with the rows.
constexpr double kBarPlotLeft = kBarLeft, kBarPlotRight = kBarWidth - kBarRight;

// The grid, the rate axis, its tick labels and its unit.
std::string bar_frame(const Scale& x, double step, int steps, double plot_bottom,
                      const std::string& unit) {
  std::string out = "<g class=\"grid\">\n";
  for (int i = 0; i <= steps; ++i) {
    const double px = x(i * step);
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", coord(px),
                       coord(kBarTop), coord(plot_bottom));
  }
  out += "</g>\n<g class=\"axis\">\n";
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", coord(kBarPlotLeft),
                     coord(plot_bottom), coord(kBarPlotRight));
  for (int i = 0; i <= steps; ++i) {
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                       coord(x(i * step)), coord(plot_bottom + 18), esc(tick_label(i * step)));
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     coord((kBarPlotLeft + kBarPlotRight) / 2), coord(plot_bottom + 36), esc(unit));
  return out + "</g>\n";
}

// The two lines right of a bar: the fraction of peak (or why there is none), then the amounts.
std::pair<std::string, std::string> bar_labels(const bench::Result& r, bool has_value,
                                               bool has_peak, const kb::Messages& messages) {
  std::string first, second;
  const auto fraction = fraction_of_peak(r);
  if (!has_value) {
    first = messages.text(r.ok ? "bench.html.no_value" : "bench.did_not_run");
    second =
        has_peak ? messages.text("bench.html.peak", {{"value", with_unit(*r.peak, r.unit)}}) : "";
  } else {
    first = fraction
                ? messages.text("bench.html.fraction_of_peak", {{"percent", percent(*fraction)}})
                : messages.text("bench.html.no_peak");
    second = has_peak
                 ? messages.text("bench.html.value_of_peak", {{"value", number(*r.value)},
                                                              {"peak", with_unit(*r.peak, r.unit)}})
                 : with_unit(*r.value, r.unit);
  }
  return {first, second};
}

// One GEMM's row from `row` down: its name, the peak bar, the measured bar and the labels.
std::string gemm_bar(const bench::Result& r, double row, const Scale& x,
                     const kb::Messages& messages) {
  const double mid = row + kBarRow / 2;
  std::string out = "<g class=\"gemm\">\n";
  out += fmt::format(
      "<text class=\"name\" x=\"{}\" y=\"{}\" text-anchor=\"end\"><title>{}</title>{}</text>\n",
      coord(kBarPlotLeft - 10), coord(mid + 4), esc(r.name), esc(clip(r.name, 24)));
  const bool has_value = usable(r.value);
  const bool has_peak = usable(r.peak) && *r.peak > 0;
  if (has_peak) {
    out += fmt::format(
        "<rect class=\"peak-bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\">"
        "<title>{}</title></rect>\n",
        coord(kBarPlotLeft), coord(row + 7), coord(x(*r.peak) - kBarPlotLeft), coord(kBarRow - 14),
        esc(peak_of(r.name, with_unit(*r.peak, r.unit), messages)));
  }
  if (has_value) {
    out += fmt::format(
        "<rect class=\"value-bar{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\">"
        "<title>{}: {}</title></rect>\n",
        r.ok ? "" : " failed", coord(kBarPlotLeft), coord(row + 14),
        coord(std::max(0.0, x(*r.value) - kBarPlotLeft)), coord(kBarRow - 28), esc(r.name),
        esc(with_unit(*r.value, r.unit)));
  }
  const auto [first, second] = bar_labels(r, has_value, has_peak, messages);
  out += fmt::format("<text class=\"fraction\" x=\"{}\" y=\"{}\">{}</text>\n",
                     coord(kBarPlotRight + 12), coord(mid - 3), esc(first));
  if (!second.empty()) {
    out += fmt::format("<text class=\"amount\" x=\"{}\" y=\"{}\">{}</text>\n",
                       coord(kBarPlotRight + 12), coord(mid + 13), esc(second));
  }
  return out + "</g>\n";
}

}  // namespace

std::string bandwidth_section(const std::vector<bench::Result>& results,
                              const kb::Messages& messages) {
  std::string out =
      "<section>\n<h2>" + esc(messages.text("bench.html.bandwidth_heading")) + "</h2>\n";
  const std::vector<Series> series = sweeps(results);
  if (series.empty()) {
    return out + "<p class=\"muted\">" + esc(messages.text("bench.html.no_sweeps")) +
           "</p>\n</section>\n";
  }
  const SizeAxis x = size_axis(series);
  const RateAxis y = rate_axis(series);
  out += fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "aria-label=\"{2}\">\n",
      kLineWidth, kLineHeight, esc(messages.text("bench.html.bandwidth_label")));
  out += line_frame(x, y, messages);
  // Peaks first, so the measured lines lie on top.
  out += peak_lines(series, y.scale, messages);
  out += sweep_lines(series, x.scale, y);
  out += line_legend(series, messages);
  out += "</svg>\n";
  if (y.log) {
    out += "<p class=\"note\">" + esc(messages.text("bench.html.log_note")) + "</p>\n";
  }
  return out + "</section>\n";
}

std::string gemm_section(const std::vector<bench::Result>& results, const kb::Messages& messages) {
  std::string out = "<section>\n<h2>" + esc(messages.text("bench.html.gemm_heading")) + "</h2>\n";
  std::vector<const bench::Result*> gemms;
  for (const auto& r : results)
    if (r.name.rfind("gemm_", 0) == 0) gemms.push_back(&r);
  if (gemms.empty()) {
    return out + "<p class=\"muted\">" + esc(messages.text("bench.html.no_gemm")) +
           "</p>\n</section>\n";
  }
  double top = 0;
  std::string unit;
  for (const auto* r : gemms) {
    if (usable(r->value)) top = std::max(top, *r->value);
    if (usable(r->peak)) top = std::max(top, *r->peak);
    if (unit.empty()) unit = r->unit;
  }
  if (unit.empty()) unit = "TFLOP/s";
  if (top <= 0) top = 1;
  const double step = nice_step(top / 5);
  const int steps = std::max(1, static_cast<int>(std::ceil(top / step - 1e-9)));
  const double plot_bottom = kBarTop + kBarRow * static_cast<double>(gemms.size());
  const double height = plot_bottom + kBarBottom;
  const Scale x{0, steps * step, kBarPlotLeft, kBarPlotRight, false, 10};

  out += fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "aria-label=\"{2}\">\n",
      kBarWidth, coord(height), esc(messages.text("bench.html.gemm_label")));
  out += bar_frame(x, step, steps, plot_bottom, unit);
  double row = kBarTop;
  for (const auto* r : gemms) {
    out += gemm_bar(*r, row, x, messages);
    row += kBarRow;
  }
  out += "</svg>\n";
  out += "<p class=\"note\">" + esc(messages.text("bench.html.bar_note")) + "</p>\n";
  return out + "</section>\n";
}

}  // namespace gpuvet::report::bench_html
