#include "report/render_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "bench/bench_json.hpp"
#include "report/paint.hpp"

namespace gpuvet::report {

namespace {

using ordered = nlohmann::ordered_json;

template <class T>
ordered or_null(const std::optional<T>& value) {
  return value ? ordered(*value) : ordered(nullptr);
}

std::string number(double value) {
  return value >= 100  ? fmt::format("{:.0f}", value)
         : value >= 10 ? fmt::format("{:.1f}", value)
                       : fmt::format("{:.2f}", value);
}

}  // namespace

std::string render_bench_json(const bench::Report& report) {
  ordered results = ordered::array();
  for (const auto& r : report.results) {
    ordered series = ordered::array();
    for (const auto& p : r.series)
      series.push_back({{"bytes", p.x}, {"value", p.y}});
    results.push_back({{"name", r.name},
                       {"value", or_null(r.value)},
                       {"unit", r.unit},
                       {"peak", or_null(r.peak)},
                       {"fraction_of_peak", or_null(r.fraction_of_peak)},
                       {"ok", r.ok},
                       {"status", r.ok    ? "ok"
                                  : r.ran ? "failed"
                                          : "not_run"},
                       {"detail", r.detail},
                       {"series", series}});
  }
  ordered j = {{"schema", "gpuvet.bench/1"},
               {"device", report.device ? bench::device_to_json(*report.device) : ordered(nullptr)},
               {"results", results}};
  j["failure"] = report.failure ? ordered{{"id", report.failure_id.value_or("other")},
                                          {"why", *report.failure},
                                          {"fix", report.failure_fix},
                                          {"detail", or_null(report.failure_detail)}}
                                : ordered(nullptr);
  return j.dump(2) + "\n";
}

std::string render_bench_text(const bench::Report& report, const kb::Messages& m, bool verify,
                              bool passed, bool color) {
  const Painter paint(color);
  std::string out;
  if (report.device) {
    const auto& d = *report.device;
    out += m.text("bench.text.device",
                  {{"name", d.name},
                   {"cc", d.compute_capability},
                   {"driver", d.driver.empty() ? m.text("plan.text.unknown") : d.driver},
                   {"sms", d.multiprocessors ? std::to_string(*d.multiprocessors) : "?"},
                   {"memory", d.memory_bytes ? fmt::format("{:.1f}", *d.memory_bytes / 1073741824.0)
                                             : std::string("?")},
                   {"link", d.pcie_generation && d.pcie_width
                                ? fmt::format("PCIe gen {} x{}", *d.pcie_generation, *d.pcie_width)
                                : m.text("plan.text.unknown")}}) +
           "\n\n";
  }
  if (report.failure) {
    out += " " + paint("✖", fmt::fg(fmt::terminal_color::red)) + " " + *report.failure + "\n   " +
           paint(report.failure_id.value_or("other"), fmt::emphasis::faint) + "\n";
    if (report.failure_detail)
      out += "   " + paint(*report.failure_detail, fmt::emphasis::faint) + "\n";
    for (const auto& step : report.failure_fix)
      out += "   " + m.text("bench.text.fix", {{"step", step}}) + "\n";
    out += "\n";
  }
  for (const auto& r : report.results) {
    const std::string mark = r.ok    ? paint("✔", fmt::fg(fmt::terminal_color::green))
                             : r.ran ? paint("✖", fmt::fg(fmt::terminal_color::red))
                                     : paint("·", fmt::emphasis::faint);
    std::string value = r.value ? number(*r.value) + " " + r.unit
                        : r.ran ? std::string("—")
                                : m.text("bench.text.not_run");
    std::string peak;
    if (r.peak && r.fraction_of_peak) {
      peak = m.text("bench.text.of_peak",
                    {{"peak", number(*r.peak)},
                     {"percent", fmt::format("{:.0f}", *r.fraction_of_peak * 100)}});
    }
    out += fmt::format(" {} {:<24} {:>14}  {}\n", mark, r.name, value, peak);
    // A result that did not run because of the failure above says nothing new.
    const bool repeats_failure = report.failure && !r.ran;
    if (!r.detail.empty() && !repeats_failure) {
      out += "     " + paint(r.detail, fmt::emphasis::faint) + "\n";
    }
  }
  if (verify) {
    const bool ran_none = std::none_of(report.results.begin(), report.results.end(),
                                       [](const bench::Result& r) { return r.ran; });
    out += "\n " +
           (passed ? paint(m.text("bench.text.verify_passed"), fmt::fg(fmt::terminal_color::green))
            : ran_none
                ? paint(m.text("bench.text.verify_not_run"), fmt::fg(fmt::terminal_color::red))
                : paint(m.text("bench.text.verify_failed"), fmt::fg(fmt::terminal_color::red))) +
           "\n";
  }
  return out;
}

}  // namespace gpuvet::report
