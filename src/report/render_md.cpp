#include <fmt/format.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/windows_paths.hpp"
#include "report/markdown.hpp"
#include "report/report.hpp"

namespace gpuvet::report {

namespace {

using md::cell;
using md::code;

std::string severity_mark(Severity severity) {
  switch (severity) {
    case Severity::error:
      return "✖";
    case Severity::warning:
      return "⚠";
    case Severity::info:
      return "ℹ";
    case Severity::ok:
      return "✔";
  }
  return "?";
}

}  // namespace

std::string render_md(const Report& report, const kb::Messages& m) {
  // The colon sits outside the bold in Chinese: "**机器：**X" would not close its bold in
  // CommonMark (a closing ** after punctuation must be followed by a space or punctuation).
  std::string out =
      fmt::format("## {}\n\n{}\n\n", m.text("report.md.title"),
                  m.text("report.md.machine_line",
                         {{"os", describe_os(report.facts, m)}, {"tool", report.tool}}));
  out += fmt::format("| {} | {} | {} |\n|---|---|---|\n", m.text("report.md.layer"),
                     m.text("report.md.status"), m.text("report.md.details"));
  for (Layer layer : kAllLayers) {
    const std::string name = m.text(fmt::format("report.layer.{}", to_string(layer)));
    std::vector<std::string> details;
    std::optional<Severity> worst;
    const bool has_findings = std::any_of(report.findings.begin(), report.findings.end(),
                                          [&](const Finding& f) { return f.layer == layer; });
    if (has_findings && layer == Layer::hardware) {
      for (const auto& line : layer_fact_lines(report.facts, layer, m))
        details.push_back(line.text);
    }
    for (const auto& f : report.findings) {
      if (f.layer != layer) continue;
      if (!worst || f.severity > *worst) worst = f.severity;
      details.push_back(fmt::format("{} {}", code(f.id), f.title));
    }
    if (!worst) {
      bool all_present = true;
      for (const auto& line : layer_fact_lines(report.facts, layer, m)) {
        details.push_back(line.text);
        all_present = all_present && line.present;
      }
      if (!details.empty() && all_present) worst = Severity::ok;
    }
    std::string joined;
    for (const auto& d : details)
      joined += (joined.empty() ? "" : "<br>") + cell(d);
    out += fmt::format("| {} | {} | {} |\n", name, worst ? severity_mark(*worst) : "·",
                       joined.empty() ? cell(empty_layer_text(report.facts, layer, m)) : joined);
  }

  out += fmt::format("\n### {}\n\n", m.text("report.md.findings"));
  if (report.findings.empty()) out += m.text("report.md.none") + "\n";
  for (const auto& f : report.findings) {
    out +=
        fmt::format("- {} **{}** {}{}{}{}\n", severity_mark(f.severity),
                    m.text(fmt::format("report.md.severity.{}", to_string(f.severity))), code(f.id),
                    m.text("report.md.layer_mark",
                           {{"layer", std::string(to_string(f.layer))},
                            {"name", m.text(fmt::format("report.layer.{}", to_string(f.layer)))}}),
                    m.text("cli.label.colon_text"), f.title);
    for (const auto& e : f.evidence)
      out += fmt::format("  - {}{}{}\n", m.text("report.md.evidence"),
                         m.text("cli.label.colon_text"), code(e));
    for (const auto& fix : f.fix)
      out +=
          fmt::format("  - {}{}{}\n", m.text("report.md.fix"), m.text("cli.label.colon_text"), fix);
  }

  out += fmt::format("\n### {}\n\n", m.text("report.md.verdict"));
  const auto to_fix = findings_to_fix(report.findings);
  out += to_fix.empty()
             ? m.text("report.no_problems")
             : m.text("report.fix_first", {{"title", to_fix.front()->title},
                                           {"id", chain_of(*to_fix.front(), report.findings)}});
  out += fmt::format(
      "\n{} · {}\n",
      m.text("report.counts", {{"errors", std::to_string(report.summary.errors)},
                               {"warnings", std::to_string(report.summary.warnings)}}),
      m.text(report.summary.gpu_ready ? "report.gpu_ready.yes" : "report.gpu_ready.no"));

  // A Windows machine's paths as Windows writes them; the facts' JSON keeps its documented form.
  if (report.facts.os.family == "windows") out = windows_paths::in_text(out);
  out += fmt::format(
      "\n<details><summary>{}</summary>\n\n```json\n{}\n```\n</details>\n",
      m.text("report.md.facts"),
      facts_to_json(report.facts).dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
  return out;
}

}  // namespace gpuvet::report
