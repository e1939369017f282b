// The two faces of a `which` report: gpuvet.which/1 JSON (CONTRACTS.md) and text in the
// catalog's language. Renderers decide nothing; every word of the text comes from the catalog.
#include "report/render_which.hpp"

#include <fmt/color.h>
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/windows_paths.hpp"
#include "report/paint.hpp"

namespace gpuvet::report {

using namespace resolve;

namespace {

using report::Painter;

using Json = nlohmann::ordered_json;

template <typename T>
Json or_null(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json step_json(const Step& step) {
  return Json{
      {"where", step.where},
      {"why", why_text(step.source, step.object)},
      {"found", step.found},
      {"source", to_string(step.source)},
      {"object", or_null(step.object)},
      {"entry", or_null(step.entry)},
      {"path", or_null(step.path)},
      {"hwcaps", or_null(step.hwcaps)},
      {"skipped", step.skipped == Skip::none ? Json(nullptr) : Json(to_string(step.skipped))},
      {"stops", stops_search(step.skipped)},
      {"detail", or_null(step.detail)}};
}

Json copy_json(const Copy& copy) {
  return Json{{"path", copy.path},
              {"version", or_null(copy.version)},
              {"why", why_text(copy.source, copy.object)},
              {"source", to_string(copy.source)}};
}

Json result_json(const Resolution& r) {
  Json steps = Json::array();
  for (const auto& step : r.steps)
    steps.push_back(step_json(step));
  Json shadowed = Json::array();
  for (const auto& copy : r.shadowed)
    shadowed.push_back(copy_json(copy));
  return Json{{"name", r.name},
              {"resolved", or_null(r.resolved)},
              {"version", or_null(r.version)},
              {"steps", steps},
              {"shadowed", shadowed},
              {"real_path", or_null(r.real_path)},
              {"error", or_null(r.error)}};
}

Json platform_json(const Platform& p) {
  return Json{{"arch", p.arch},
              {"bits", or_null(p.bits)},
              {"machine", or_null(p.machine)},
              {"lib", p.lib},
              {"platform", p.platform},
              {"default_dirs", p.default_dirs},
              {"hwcaps", p.hwcaps},
              {"hwcaps_assumed", p.hwcaps_assumed},
              {"hwcaps_source", p.hwcaps_source.empty() ? Json(nullptr) : Json(p.hwcaps_source)}};
}

std::string why_words(const kb::Messages& m, Source source,
                      const std::optional<std::string>& object) {
  return m.text(fmt::format("which.why.{}", to_string(source)), {{"object", object.value_or("")}});
}

std::string skip_words(const kb::Messages& m, const Step& step) {
  return m.text(fmt::format("which.skip.{}", to_string(step.skipped)),
                {{"bits", step.bits ? std::to_string(*step.bits) : "?"},
                 {"machine", step.machine ? std::to_string(*step.machine) : "?"},
                 {"detail", step.detail.value_or("")}});
}

std::string step_line(const Step& step, const kb::Messages& m, const Painter& paint) {
  std::string mark = paint("✗", fmt::emphasis::faint);
  if (step.found) mark = paint("✔", fmt::fg(fmt::terminal_color::green) | fmt::emphasis::bold);
  if (stops_search(step.skipped)) mark = paint("✖", fmt::fg(fmt::terminal_color::bright_red));
  std::string line = "  " + mark + " " + step.path.value_or(step.where) + "  " +
                     paint(why_words(m, step.source, step.object), fmt::emphasis::faint);
  if (step.entry)
    line += paint(" " + m.text("which.entry", {{"entry", *step.entry}}), fmt::emphasis::faint);
  if (step.hwcaps) line += " " + m.text("which.hwcaps", {{"level", *step.hwcaps}});
  if (step.found) line += " — " + m.text("which.step.found");
  if (step.skipped != Skip::none) line += " — " + skip_words(m, step);
  return line + "\n";
}

std::string result_text(const Resolution& r, const kb::Messages& m, const Painter& paint,
                        const std::string& searched_key) {
  std::string out;
  if (r.resolved) {
    out += m.text("which.loads",
                  {{"name", paint(r.name, fmt::emphasis::bold)}, {"path", *r.resolved}});
    if (r.version) out += "  " + m.text("which.version", {{"version", *r.version}});
    out += "\n";
    if (r.real_path && *r.real_path != *r.resolved) {
      out += "  " + m.text("which.real_path", {{"path", *r.real_path}}) + "\n";
    }
  } else {
    out += paint(m.text("which.not_loaded", {{"name", r.name}, {"error", r.error.value_or("")}}),
                 fmt::fg(fmt::terminal_color::bright_red)) +
           "\n";
  }
  out += " " + m.text(searched_key) + "\n";
  for (const auto& step : r.steps)
    out += step_line(step, m, paint);
  if (r.shadowed.empty()) return out;
  out += " " + m.text(r.resolved ? "which.shadowed" : "which.later_copies") + "\n";
  for (const auto& copy : r.shadowed) {
    out += "    " + copy.path;
    if (copy.version) out += "  " + m.text("which.version", {{"version", *copy.version}});
    out += "  " + paint(why_words(m, copy.source, copy.object), fmt::emphasis::faint) + "\n";
  }
  return out;
}

}  // namespace

std::string render_which_json(const WhichReport& report) {
  Json results = Json::array();
  for (const auto& r : report.results)
    results.push_back(result_json(r));
  const Json document = {{"schema", kWhichSchema},
                         {"results", results},
                         {"from", or_null(report.from)},
                         {"platform", platform_json(report.platform)},
                         {"search", report.windows ? "LoadLibrary" : "ld.so"},
                         {"windows_mode", or_null(report.windows_mode)}};
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string render_which_text(const WhichReport& report, const kb::Messages& messages, bool color) {
  const Painter paint(color);
  std::string out;
  for (size_t i = 0; i < report.results.size(); ++i) {
    if (i > 0) out += "\n";
    const std::string searched = !report.windows                     ? "which.searched"
                                 : report.windows_mode == "python38" ? "which.searched_python38"
                                                                     : "which.searched_windows";
    out += result_text(report.results[i], messages, paint, searched);
  }
  // LoadLibrary's search is a Windows machine's: its paths as Windows writes them.
  return report.windows ? windows_paths::in_text(out) : out;
}

}  // namespace gpuvet::report
