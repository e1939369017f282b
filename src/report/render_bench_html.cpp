#include "report/render_bench_html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <utility>
#include <vector>

namespace gpuvet::report {

namespace {

// The page draws its own charts; these are the SVG canvases, in CSS pixels.
constexpr double kLineWidth = 900, kLineHeight = 440;
constexpr double kLineLeft = 72, kLineRight = 210, kLineTop = 20, kLineBottom = 56;
constexpr double kBarWidth = 900, kBarRow = 46;
constexpr double kBarLeft = 180, kBarRight = 240, kBarTop = 12, kBarBottom = 40;
// The sweep's usual range: 4 KiB (2^12) to 1 GiB (2^30).
constexpr int kSweepFrom = 12, kSweepTo = 30;

std::string esc(std::string_view s) {
  return html_escape(s);
}

// An SVG coordinate: one decimal, never NaN or infinite.
std::string coord(double v) {
  return fmt::format("{:.1f}", std::isfinite(v) ? v : 0.0);
}

bool usable(const std::optional<double>& v) {
  return v && std::isfinite(*v);
}

// A measured value as people read it: three or four significant digits.
std::string number(double v) {
  if (!std::isfinite(v)) return "n/a";
  const double a = std::fabs(v);
  if (a >= 1e6) return fmt::format("{:.4g}", v);
  if (a >= 1000) return fmt::format("{:.0f}", v);
  if (a >= 100) return fmt::format("{:.1f}", v);
  if (a >= 1 || a == 0) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
}

std::string with_unit(double v, const std::string& unit) {
  return unit.empty() ? number(v) : number(v) + " " + unit;
}

// 4096 -> "4 KiB", 1073741824 -> "1 GiB".
std::string bytes_label(double bytes) {
  static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (!std::isfinite(bytes)) return "n/a";
  size_t u = 0;
  while (std::fabs(bytes) >= 1024 && u + 1 < std::size(units)) {
    bytes /= 1024;
    ++u;
  }
  return fmt::format("{:.4g} {}", bytes, units[u]);
}

// At most `limit` characters of UTF-8 text, cut at a character boundary, "…" when cut.
std::string clip(const std::string& s, size_t limit) {
  size_t chars = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (chars == limit) return s.substr(0, i) + "…";
    ++chars;
  }
  return s;
}

std::optional<double> fraction_of_peak(const bench::Result& r) {
  if (usable(r.fraction_of_peak)) return r.fraction_of_peak;
  if (!usable(r.value) || !usable(r.peak) || *r.peak <= 0) return std::nullopt;
  const double fraction = *r.value / *r.peak;
  return std::isfinite(fraction) ? std::optional<double>(fraction) : std::nullopt;
}

std::string percent(double fraction) {
  return fmt::format("{:.1f}%", fraction * 100);
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

// ---------------------------------------------------------------- device

std::string device_section(const std::optional<bench::DeviceInfo>& device) {
  std::string out = "<section>\n<h2>Device</h2>\n";
  if (!device)
    return out + "<p class=\"muted\">No device information in this report.</p>\n</section>\n";
  const bench::DeviceInfo& d = *device;
  const std::string unknown = "<span class=\"unknown\">unknown</span>";
  auto text = [&](const std::string& s) { return s.empty() ? unknown : esc(s); };
  auto opt_text = [&](const std::optional<std::string>& s) { return s ? text(*s) : unknown; };
  auto opt_int = [&](const auto& v, const char* suffix) {
    return v ? esc(fmt::format("{}{}", *v, suffix)) : unknown;
  };
  std::string memory = unknown;
  if (d.memory_bytes) {
    memory = esc(fmt::format("{} ({} bytes)", bytes_label(static_cast<double>(*d.memory_bytes)),
                             *d.memory_bytes));
  }
  const std::string l2 =
      d.l2_cache_bytes ? esc(bytes_label(static_cast<double>(*d.l2_cache_bytes))) : unknown;
  const std::string ecc = d.ecc ? (*d.ecc ? "on" : "off") : unknown;
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"Index", esc(std::to_string(d.index))},
      {"Name", text(d.name)},
      {"Compute capability", text(d.compute_capability)},
      {"Driver", text(d.driver)},
      {"CUDA driver version", opt_text(d.cuda_driver_version)},
      {"Multiprocessors", opt_int(d.multiprocessors, "")},
      {"SM clock", opt_int(d.clock_mhz, " MHz")},
      {"Memory clock", opt_int(d.memory_clock_mhz, " MHz")},
      {"Memory bus width", opt_int(d.memory_bus_width, " bits")},
      {"Memory", memory},
      {"L2 cache", l2},
      {"PCIe generation", opt_int(d.pcie_generation, "")},
      {"PCIe width", d.pcie_width ? esc(fmt::format("x{}", *d.pcie_width)) : unknown},
      {"ECC", ecc},
      {"Compute mode", opt_text(d.compute_mode)},
      {"Driver model", opt_text(d.driver_model)},
  };
  out += "<table class=\"device\">\n";
  for (const auto& [field, value] : rows)
    out += "<tr><th scope=\"row\">" + field + "</th><td>" + value + "</td></tr>\n";
  return out + "</table>\n</section>\n";
}

// ---------------------------------------------------------------- bandwidth chart

struct Series {
  const bench::Result* result = nullptr;
  std::string color;
  std::vector<bench::Point> points;  // drawable ones, by transfer size
};

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

std::string bandwidth_section(const std::vector<bench::Result>& results) {
  std::string out = "<section>\n<h2>Bandwidth against transfer size</h2>\n";
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
  if (series.empty()) {
    return out + "<p class=\"muted\">No bandwidth sweeps in this report.</p>\n</section>\n";
  }

  const double plot_left = kLineLeft, plot_right = kLineWidth - kLineRight;
  const double plot_top = kLineTop, plot_bottom = kLineHeight - kLineBottom;

  // x: log2 of the transfer size, at least 4 KiB .. 1 GiB, wider when the data is.
  int x_lo = kSweepFrom, x_hi = kSweepTo;
  for (const auto& s : series) {
    for (const auto& p : s.points) {
      x_lo = std::min(x_lo, static_cast<int>(std::floor(std::log2(p.x))));
      x_hi = std::max(x_hi, static_cast<int>(std::ceil(std::log2(p.x))));
    }
  }
  x_lo = std::max(x_lo, 0);
  x_hi = std::min(std::max(x_hi, x_lo + 1), 80);
  const Scale x{double(x_lo), double(x_hi), plot_left, plot_right, true, 2};

  // y: linear from zero, or log10 when the series' maxima lie more than ten times apart (device
  // copies next to PCIe transfers) so that the slow ones do not lie flat on the axis.
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
  Scale y{0, 1, plot_bottom, plot_top, y_log, 10};
  std::vector<std::pair<double, bool>> y_ticks;  // value, labelled
  if (y_log) {
    int lo = static_cast<int>(std::floor(std::log10(y_min_positive)));
    int hi = static_cast<int>(std::ceil(std::log10(y_max)));
    if (hi <= lo) hi = lo + 1;
    // Every decade (every few when there are many), with 2 and 5 between when there is room.
    const int decade_step = std::max(1, (hi - lo + 7) / 8);
    hi = lo + (hi - lo + decade_step - 1) / decade_step * decade_step;
    y.lo = lo;
    y.hi = hi;
    const bool label_minor = hi - lo <= 3;
    for (int e = lo; e <= hi; e += decade_step) {
      const double decade = std::pow(10.0, e);
      if (!std::isfinite(decade) || decade == 0) continue;
      y_ticks.emplace_back(decade, true);
      if (e == hi || decade_step > 1) continue;
      for (int m : {2, 5})
        y_ticks.emplace_back(m * decade, label_minor);
    }
  } else {
    const double top_value = y_max > 0 ? y_max : 1;
    const double step = nice_step(top_value / 5);
    const int steps = std::max(1, static_cast<int>(std::ceil(top_value / step - 1e-9)));
    y.hi = steps * step;
    for (int i = 0; i <= steps; ++i)
      y_ticks.emplace_back(i * step, true);
  }

  out += fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "aria-label=\"Bandwidth in GB/s against transfer size\">\n",
      kLineWidth, kLineHeight);
  // Grid and axes.
  out += "<g class=\"grid\">\n";
  const int x_step = std::max(1, static_cast<int>(std::ceil((x_hi - x_lo) / 10.0)));
  for (int e = x_lo; e <= x_hi; e += x_step) {
    const double px = x(std::ldexp(1.0, e));
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", coord(px),
                       coord(plot_top), coord(plot_bottom));
  }
  for (const auto& [value, labelled] : y_ticks) {
    const double py = y(value);
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"{}/>\n", coord(plot_left),
                       coord(py), coord(plot_right), coord(py), labelled ? "" : " class=\"minor\"");
  }
  out += "</g>\n<g class=\"axis\">\n";
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", coord(plot_left),
                     coord(plot_bottom), coord(plot_right));
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", coord(plot_left),
                     coord(plot_top), coord(plot_bottom));
  for (int e = x_lo; e <= x_hi; e += x_step) {
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                       coord(x(std::ldexp(1.0, e))), coord(plot_bottom + 18),
                       esc(bytes_label(std::ldexp(1.0, e))));
  }
  for (const auto& [value, labelled] : y_ticks) {
    if (!labelled) continue;
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
                       coord(plot_left - 8), coord(y(value) + 4), esc(tick_label(value)));
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">transfer size</text>\n",
                     coord((plot_left + plot_right) / 2), coord(plot_bottom + 42));
  out += fmt::format(
      "<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" transform=\"rotate(-90 {0} {1})\">"
      "GB/s{2}</text>\n",
      coord(18), coord((plot_top + plot_bottom) / 2), y_log ? " (log scale)" : "");
  out += "</g>\n";

  // Peaks first, so the measured lines lie on top; one label per distinct peak.
  std::vector<std::string> peak_labels;
  for (const auto& s : series) {
    const bench::Result& r = *s.result;
    if (!usable(r.peak) || *r.peak <= 0) continue;
    const double py = y(*r.peak);
    out += fmt::format(
        "<line class=\"peak\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\">"
        "<title>{} peak: {}</title></line>\n",
        coord(plot_left), coord(py), coord(plot_right), coord(py), s.color, esc(r.name),
        esc(with_unit(*r.peak, r.unit.empty() ? "GB/s" : r.unit)));
    const std::string label = "peak " + with_unit(*r.peak, r.unit.empty() ? "GB/s" : r.unit);
    if (std::find(peak_labels.begin(), peak_labels.end(), label) != peak_labels.end()) continue;
    peak_labels.push_back(label);
    out += fmt::format(
        "<text class=\"peak-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\" "
        "fill=\"{}\">{}</text>\n",
        coord(plot_right - 4), coord(py - 5), s.color, esc(label));
  }

  for (const auto& s : series) {
    const bench::Result& r = *s.result;
    const std::string unit = r.unit.empty() ? "GB/s" : r.unit;
    out += fmt::format("<g class=\"series\" stroke=\"{0}\" fill=\"{0}\">\n", s.color);
    std::vector<const bench::Point*> drawn;
    for (const auto& p : s.points)
      if (!y_log || p.y > 0) drawn.push_back(&p);
    if (drawn.size() >= 2) {
      std::string points;
      for (const auto* p : drawn)
        points += (points.empty() ? "" : " ") + coord(x(p->x)) + "," + coord(y(p->y));
      out += "<polyline fill=\"none\" points=\"" + points + "\"><title>" + esc(r.name) +
             "</title></polyline>\n";
    }
    for (const auto* p : drawn) {
      out +=
          fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\"><title>{}: {} → {}</title></circle>\n",
                      coord(x(p->x)), coord(y(p->y)), esc(r.name), esc(bytes_label(p->x)),
                      esc(with_unit(p->y, unit)));
    }
    out += "</g>\n";
  }

  // Legend, right of the plot.
  out += "<g class=\"legend\">\n";
  double ly = plot_top + 10;
  const double lx = plot_right + 20;
  bool any_peak = false;
  for (const auto& s : series) {
    const bench::Result& r = *s.result;
    any_peak = any_peak || (usable(r.peak) && *r.peak > 0);
    out += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"3\"/>\n",
        coord(lx), coord(ly), coord(lx + 22), coord(ly), s.color);
    out += fmt::format("<text x=\"{}\" y=\"{}\"><title>{}</title>{}{}</text>\n", coord(lx + 30),
                       coord(ly + 4), esc(r.name), esc(clip(r.name, 20)),
                       s.points.empty() ? " (no data)" : "");
    ly += 22;
  }
  if (any_peak) {
    out += fmt::format(
        "<line class=\"peak\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#555\"/>\n",
        coord(lx), coord(ly), coord(lx + 22), coord(ly));
    out += fmt::format("<text x=\"{}\" y=\"{}\">peak (same colour)</text>\n", coord(lx + 30),
                       coord(ly + 4));
  }
  out += "</g>\n</svg>\n";
  if (y_log) {
    out +=
        "<p class=\"note\">The y axis is logarithmic: the fastest and slowest sweeps lie more than "
        "a factor of ten apart.</p>\n";
  }
  return out + "</section>\n";
}

// ---------------------------------------------------------------- GEMM chart

std::string gemm_section(const std::vector<bench::Result>& results) {
  std::string out = "<section>\n<h2>Matrix multiply (GEMM) against peak</h2>\n";
  std::vector<const bench::Result*> gemms;
  for (const auto& r : results)
    if (r.name.rfind("gemm_", 0) == 0) gemms.push_back(&r);
  if (gemms.empty()) {
    return out + "<p class=\"muted\">No GEMM results in this report.</p>\n</section>\n";
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
  const double plot_left = kBarLeft, plot_right = kBarWidth - kBarRight;
  const double plot_top = kBarTop;
  const double plot_bottom = plot_top + kBarRow * static_cast<double>(gemms.size());
  const double height = plot_bottom + kBarBottom;
  const Scale x{0, steps * step, plot_left, plot_right, false, 10};

  out += fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "aria-label=\"GEMM rate against peak\">\n",
      kBarWidth, coord(height));
  out += "<g class=\"grid\">\n";
  for (int i = 0; i <= steps; ++i) {
    const double px = x(i * step);
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", coord(px),
                       coord(plot_top), coord(plot_bottom));
  }
  out += "</g>\n<g class=\"axis\">\n";
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", coord(plot_left),
                     coord(plot_bottom), coord(plot_right));
  for (int i = 0; i <= steps; ++i) {
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                       coord(x(i * step)), coord(plot_bottom + 18), esc(tick_label(i * step)));
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     coord((plot_left + plot_right) / 2), coord(plot_bottom + 36), esc(unit));
  out += "</g>\n";

  double row = plot_top;
  for (const auto* r : gemms) {
    const double mid = row + kBarRow / 2;
    out += "<g class=\"gemm\">\n";
    out += fmt::format(
        "<text class=\"name\" x=\"{}\" y=\"{}\" text-anchor=\"end\"><title>{}</title>{}</text>\n",
        coord(plot_left - 10), coord(mid + 4), esc(r->name), esc(clip(r->name, 24)));
    const bool has_value = usable(r->value);
    const bool has_peak = usable(r->peak) && *r->peak > 0;
    if (has_peak) {
      out += fmt::format(
          "<rect class=\"peak-bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\">"
          "<title>{} peak: {}</title></rect>\n",
          coord(plot_left), coord(row + 7), coord(x(*r->peak) - plot_left), coord(kBarRow - 14),
          esc(r->name), esc(with_unit(*r->peak, r->unit)));
    }
    if (has_value) {
      out += fmt::format(
          "<rect class=\"value-bar{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\">"
          "<title>{}: {}</title></rect>\n",
          r->ok ? "" : " failed", coord(plot_left), coord(row + 14),
          coord(std::max(0.0, x(*r->value) - plot_left)), coord(kBarRow - 28), esc(r->name),
          esc(with_unit(*r->value, r->unit)));
    }
    std::string first, second;
    const auto fraction = fraction_of_peak(*r);
    if (!has_value) {
      first = r->ok ? "no value" : "did not run";
      second = has_peak ? "peak " + with_unit(*r->peak, r->unit) : "";
    } else {
      first = fraction ? percent(*fraction) + " of peak" : "no peak known";
      second = has_peak ? number(*r->value) + " of " + with_unit(*r->peak, r->unit)
                        : with_unit(*r->value, r->unit);
    }
    out += fmt::format("<text class=\"fraction\" x=\"{}\" y=\"{}\">{}</text>\n",
                       coord(plot_right + 12), coord(mid - 3), esc(first));
    if (!second.empty()) {
      out += fmt::format("<text class=\"amount\" x=\"{}\" y=\"{}\">{}</text>\n",
                         coord(plot_right + 12), coord(mid + 13), esc(second));
    }
    out += "</g>\n";
    row += kBarRow;
  }
  out += "</svg>\n";
  out +=
      "<p class=\"note\">Dark bar: measured; light bar: the device's peak for that "
      "precision.</p>\n";
  return out + "</section>\n";
}

// ---------------------------------------------------------------- results table

std::string results_section(const std::vector<bench::Result>& results) {
  std::string out = "<section>\n<h2>All results</h2>\n";
  if (results.empty())
    return out + "<p class=\"muted\">No results in this report.</p>\n</section>\n";
  out +=
      "<table class=\"results\">\n<thead><tr><th>Result</th><th class=\"num\">Value</th>"
      "<th class=\"num\">Peak</th><th class=\"num\">Of peak</th><th>OK</th><th>Detail</th>"
      "</tr></thead>\n<tbody>\n";
  const std::string none = "<span class=\"muted\">—</span>";
  for (const auto& r : results) {
    const auto fraction = fraction_of_peak(r);
    out += fmt::format(
        "<tr{}><td class=\"name\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"ok\">{}</td><td>{}</td></tr>\n",
        r.ok ? "" : " class=\"failed\"", esc(r.name),
        usable(r.value) ? esc(with_unit(*r.value, r.unit)) : none,
        usable(r.peak) ? esc(with_unit(*r.peak, r.unit)) : none,
        fraction ? esc(percent(*fraction)) : none,
        r.ok ? "<span class=\"yes\" title=\"ok\">✔</span>"
             : "<span class=\"no\" title=\"not ok\">✖</span>",
        esc(r.detail));
  }
  return out + "</tbody>\n</table>\n</section>\n";
}

// No script, no external anything: the policy makes the browser refuse (and report) any load.
constexpr const char* kHead = R"(<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif;
       margin: 0 auto; padding: 24px 32px 48px; max-width: 1000px; color: #1d232b; background: #fff;
       line-height: 1.45; }
h1 { font-size: 1.6em; margin: 0 0 4px; }
h2 { font-size: 1.2em; margin: 32px 0 10px; border-bottom: 1px solid #d8dde3; padding-bottom: 4px; }
.subtitle, .muted, .note, .unknown { color: #66707c; }
.note { font-size: 0.9em; }
.summary { margin: 8px 0 0; }
.failure { border: 2px solid #c62828; background: #fdecea; border-radius: 6px; padding: 12px 16px;
           margin: 20px 0; }
.failure h2 { margin: 0 0 6px; border: 0; color: #b71c1c; }
.failure p { margin: 4px 0; }
.failure code { font-size: 0.95em; }
table { border-collapse: collapse; font-size: 0.93em; }
th, td { text-align: left; padding: 5px 10px; border-bottom: 1px solid #e3e7eb; vertical-align: top; }
table.device th { font-weight: 600; color: #3b4450; width: 190px; }
table.results { width: 100%; }
table.results thead th { background: #f2f4f6; white-space: nowrap; }
th.num, td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.name { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; white-space: nowrap; }
td.ok { text-align: center; }
.yes { color: #2e7d32; font-weight: 700; }
.no { color: #c62828; font-weight: 700; }
tr.failed td { background: #fff4f2; }
svg.chart { display: block; max-width: 100%; height: auto; font-size: 12px; }
svg.chart text { fill: #3b4450; stroke: none; }
svg.chart .grid line { stroke: #e6e9ed; stroke-width: 1; }
svg.chart .grid line.minor { stroke: #f2f4f6; }
svg.chart .axis line { stroke: #8a939e; stroke-width: 1; }
svg.chart .series polyline { stroke-width: 2.2; }
svg.chart .series circle { stroke: none; }
svg.chart line.peak { stroke-dasharray: 7 5; stroke-width: 1.6; }
svg.chart text.peak-label { font-size: 11px; }
svg.chart .peak-bar { fill: #dbe7f4; stroke: #8fb0d3; stroke-width: 1; }
svg.chart .value-bar { fill: #1f5f9e; }
svg.chart .value-bar.failed { fill: #c62828; }
svg.chart text.fraction { font-weight: 700; fill: #1d232b; }
svg.chart text.name { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
@media print { body { padding: 0; } h2 { break-after: avoid; } svg.chart, table { break-inside: avoid; } }
</style>
)";

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_bench_html(const bench::Report& report, const std::string& title) {
  const std::string heading = title.empty() ? "gpuvet bench" : title;
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n";
  out += kHead;
  out += "<title>" + esc(heading) + "</title>\n</head>\n<body>\n<header>\n";
  out += "<h1>" + esc(heading) + "</h1>\n";
  const std::string device_name =
      report.device && !report.device->name.empty() ? report.device->name : "unknown device";
  size_t ok = 0;
  for (const auto& r : report.results)
    ok += r.ok ? 1 : 0;
  out += "<p class=\"subtitle\">gpuvet bench · " + esc(device_name) + "</p>\n";
  out += fmt::format("<p class=\"summary\">{} results: {} ok, {} did not run or failed.</p>\n",
                     report.results.size(), ok, report.results.size() - ok);
  out += "</header>\n";
  if (report.failure || report.failure_id) {
    out += "<section class=\"failure\" role=\"alert\">\n<h2>✖ The benchmark did not run</h2>\n";
    if (report.failure) out += "<p>" + esc(*report.failure) + "</p>\n";
    if (report.failure_id) out += "<p>Finding: <code>" + esc(*report.failure_id) + "</code></p>\n";
    out += "</section>\n";
  }
  out += "<main>\n";
  out += device_section(report.device);
  out += bandwidth_section(report.results);
  out += gemm_section(report.results);
  out += results_section(report.results);
  out += "</main>\n</body>\n</html>\n";
  return out;
}

}  // namespace gpuvet::report
