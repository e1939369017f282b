// `bench --html`: the page around the charts (bench_html_charts.cpp): its skeleton and CSS, the
// device and results tables, and the values as people read them.
#include "report/render_bench_html.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <optional>
#include <utility>
#include <vector>

#include "report/bench_html_internal.hpp"

namespace gpuvet::report {

namespace bench_html {

// ---------------------------------------------------------------- values as people read them

std::string esc(std::string_view s) {
  return html_escape(s);
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

namespace {

// ---------------------------------------------------------------- device

std::string device_section(const std::optional<bench::DeviceInfo>& device,
                           const kb::Messages& messages) {
  std::string out = "<section>\n<h2>" + esc(messages.text("bench.html.device")) + "</h2>\n";
  if (!device) {
    return out + "<p class=\"muted\">" + esc(messages.text("bench.html.no_device")) +
           "</p>\n</section>\n";
  }
  const bench::DeviceInfo& d = *device;
  const std::string unknown =
      "<span class=\"unknown\">" + esc(messages.text("bench.html.unknown")) + "</span>";
  auto text = [&](const std::string& s) { return s.empty() ? unknown : esc(s); };
  auto opt_text = [&](const std::optional<std::string>& s) { return s ? text(*s) : unknown; };
  auto opt_int = [&](const auto& v, const char* suffix) {
    return v ? esc(fmt::format("{}{}", *v, suffix)) : unknown;
  };
  std::string memory = unknown;
  if (d.memory_bytes) {
    memory = esc(messages.text("bench.html.memory_bytes",
                               {{"size", bytes_label(static_cast<double>(*d.memory_bytes))},
                                {"bytes", std::to_string(*d.memory_bytes)}}));
  }
  const std::string l2 =
      d.l2_cache_bytes ? esc(bytes_label(static_cast<double>(*d.l2_cache_bytes))) : unknown;
  const std::string ecc =
      d.ecc ? esc(messages.text(*d.ecc ? "bench.html.on" : "bench.html.off")) : unknown;
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"index", esc(std::to_string(d.index))},
      {"name", text(d.name)},
      {"compute_capability", text(d.compute_capability)},
      {"driver", text(d.driver)},
      {"cuda_driver_version", opt_text(d.cuda_driver_version)},
      {"multiprocessors", opt_int(d.multiprocessors, "")},
      {"sm_clock", opt_int(d.clock_mhz, " MHz")},
      {"memory_clock", opt_int(d.memory_clock_mhz, " MHz")},
      {"memory_bus_width", opt_int(d.memory_bus_width, " bit")},
      {"memory", memory},
      {"l2_cache", l2},
      {"pcie_generation", opt_int(d.pcie_generation, "")},
      {"pcie_width", d.pcie_width ? esc(fmt::format("x{}", *d.pcie_width)) : unknown},
      {"ecc", ecc},
      {"compute_mode", opt_text(d.compute_mode)},
      {"driver_model", opt_text(d.driver_model)},
  };
  out += "<table class=\"device\">\n";
  for (const auto& [field, value] : rows) {
    out += "<tr><th scope=\"row\">" + esc(messages.text("bench.html.field." + field)) +
           "</th><td>" + value + "</td></tr>\n";
  }
  return out + "</table>\n</section>\n";
}

// ---------------------------------------------------------------- results table

std::string results_section(const std::vector<bench::Result>& results,
                            const kb::Messages& messages) {
  auto word = [&](std::string_view key) { return esc(messages.text(key)); };
  std::string out = "<section>\n<h2>" + word("bench.html.all_results") + "</h2>\n";
  if (results.empty())
    return out + "<p class=\"muted\">" + word("bench.html.no_results") + "</p>\n</section>\n";
  out += fmt::format(
      "<table class=\"results\">\n<thead><tr><th>{}</th><th class=\"num\">{}</th>"
      "<th class=\"num\">{}</th><th class=\"num\">{}</th><th>{}</th><th>{}</th>"
      "</tr></thead>\n<tbody>\n",
      word("bench.html.column.result"), word("bench.html.column.value"),
      word("bench.html.column.peak"), word("bench.html.column.of_peak"),
      word("bench.html.column.ok"), word("bench.html.column.detail"));
  const std::string none = "<span class=\"muted\">—</span>";
  const std::string ok = "<span class=\"yes\" title=\"" + word("bench.html.ok") + "\">✔</span>";
  const std::string failed =
      "<span class=\"no\" title=\"" + word("bench.html.failed") + "\">✖</span>";
  const std::string not_run = "<span title=\"" + word("bench.text.not_run") + "\">· " +
                              word("bench.text.not_run") + "</span>";
  for (const auto& r : results) {
    const auto fraction = fraction_of_peak(r);
    out += fmt::format(
        "<tr{}><td class=\"name\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"ok\">{}</td><td>{}</td></tr>\n",
        r.ok ? "" : " class=\"failed\"", esc(r.name),
        usable(r.value) ? esc(with_unit(*r.value, r.unit)) : none,
        usable(r.peak) ? esc(with_unit(*r.peak, r.unit)) : none,
        fraction ? esc(percent(*fraction)) : none,
        r.ok    ? ok
        : r.ran ? failed
                : not_run,
        esc(r.detail));
  }
  return out + "</tbody>\n</table>\n</section>\n";
}

// Why there are no figures: the cause, its finding and its fix.
std::string failure_section(const bench::Report& report, const kb::Messages& messages) {
  std::string out = "<section class=\"failure\" role=\"alert\">\n<h2>✖ " +
                    esc(messages.text("bench.html.did_not_run_heading")) + "</h2>\n";
  if (report.failure) out += "<p>" + esc(*report.failure) + "</p>\n";
  if (report.failure_id) {
    out += "<p>" + esc(messages.text("bench.html.finding")) + "<code>" + esc(*report.failure_id) +
           "</code></p>\n";
  }
  if (!report.failure_fix.empty()) {
    out += "<p>" + esc(messages.text("bench.html.fix")) + "</p>\n<ul>\n";
    for (const auto& step : report.failure_fix)
      out += "<li>" + esc(step) + "</li>\n";
    out += "</ul>\n";
  }
  return out + "</section>\n";
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

}  // namespace bench_html

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

std::string render_bench_html(const bench::Report& report, const std::string& title,
                              const kb::Messages& messages) {
  using bench_html::bandwidth_section, bench_html::device_section, bench_html::esc,
      bench_html::failure_section, bench_html::gemm_section, bench_html::kHead,
      bench_html::results_section;
  const std::string heading = title.empty() ? "gpuvet bench" : title;
  const std::string lang = messages.lang() == kb::Lang::zh ? "zh-CN" : "en";
  std::string out = "<!DOCTYPE html>\n<html lang=\"" + lang + "\">\n<head>\n";
  out += kHead;
  out += "<title>" + esc(heading) + "</title>\n</head>\n<body>\n<header>\n";
  out += "<h1>" + esc(heading) + "</h1>\n";
  const std::string device_name = report.device && !report.device->name.empty()
                                      ? report.device->name
                                      : messages.text("bench.html.unknown_device");
  size_t ok = 0;
  size_t not_run = 0;
  for (const auto& r : report.results) {
    ok += r.ok ? 1 : 0;
    not_run += r.ran ? 0 : 1;
  }
  out += "<p class=\"subtitle\">gpuvet bench · " + esc(device_name) + "</p>\n";
  out += "<p class=\"summary\">" +
         esc(messages.text("bench.html.summary",
                           {{"total", std::to_string(report.results.size())},
                            {"ok", std::to_string(ok)},
                            {"failed", std::to_string(report.results.size() - ok - not_run)},
                            {"not_run", std::to_string(not_run)}})) +
         "</p>\n";
  out += "</header>\n";
  if (report.failure || report.failure_id) out += failure_section(report, messages);
  out += "<main>\n";
  out += device_section(report.device, messages);
  out += bandwidth_section(report.results, messages);
  out += gemm_section(report.results, messages);
  out += results_section(report.results, messages);
  out += "</main>\n</body>\n</html>\n";
  return out;
}

}  // namespace gpuvet::report
