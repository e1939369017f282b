#include <fmt/color.h>

#include <fmt/format.h>

#include <algorithm>

#include "report/paint.hpp"

#include "core/text.hpp"
#include "core/windows_paths.hpp"
#include "report/report.hpp"

namespace gpuvet::report {

namespace {

fmt::text_style style_of(Severity severity) {
  switch (severity) {
    case Severity::error:
      return fmt::fg(fmt::terminal_color::bright_red) | fmt::emphasis::bold;
    case Severity::warning:
      return fmt::fg(fmt::terminal_color::yellow) | fmt::emphasis::bold;
    case Severity::info:
      return fmt::fg(fmt::terminal_color::cyan);
    case Severity::ok:
      return fmt::fg(fmt::terminal_color::green);
  }
  return {};
}

std::string symbol_of(Severity severity) {
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

constexpr size_t kLabelColumns = 10;

std::string label(const kb::Messages& m, Layer layer) {
  std::string name = m.text(fmt::format("report.layer.{}", to_string(layer)));
  const size_t width = text::display_width(name);
  if (width < kLabelColumns) name.append(kLabelColumns - width, ' ');
  return name;
}

void render_layer(std::string& out, const Report& report, Layer layer, const kb::Messages& m,
                  const Painter& paint) {
  const std::string head = " " + label(m, layer) + " ";
  const std::string continuation(1 + kLabelColumns + 1, ' ');
  const std::string indent = continuation + "  ";
  bool first = true;
  auto start_line = [&] {
    out += first ? head : continuation;
    first = false;
  };
  const bool has_findings = std::any_of(report.findings.begin(), report.findings.end(),
                                        [&](const Finding& f) { return f.layer == layer; });
  // The GPU's identity stays on its row when there is a problem with it (named from its PCI id
  // when no driver answers), so the findings below say which GPU they mean.
  if (has_findings && layer == Layer::hardware) {
    for (const auto& line : layer_fact_lines(report.facts, layer, m)) {
      start_line();
      out += paint("·", fmt::emphasis::faint) + " " + line.text + "\n";
    }
  }
  for (const auto& f : report.findings) {
    if (f.layer != layer) continue;
    start_line();
    out += paint(symbol_of(f.severity), style_of(f.severity)) + " " + f.title + "  " +
           paint(f.id, fmt::emphasis::faint) + "\n";
    for (const auto& e : f.evidence)
      out += indent + paint(e, fmt::emphasis::faint) + "\n";
    for (const auto& fix : f.fix)
      out += indent + m.text("report.fix", {{"text", fix}}) + "\n";
  }
  if (!first) return;
  const auto facts = layer_fact_lines(report.facts, layer, m);
  if (facts.empty()) {
    start_line();
    out += paint("·", fmt::emphasis::faint) + " " +
           paint(empty_layer_text(report.facts, layer, m), fmt::emphasis::faint) + "\n";
    return;
  }
  for (const auto& line : facts) {
    start_line();
    // A GPU build whose only way to the GPU passes through an error below says so.
    const std::string blocked = line.present && !line.env.empty()
                                    ? text::join(checks::errors_blocking(report.findings, line.env),
                                                 m.text("cli.list_separator"))
                                    : std::string();
    if (!blocked.empty()) {
      out += paint(symbol_of(Severity::error), style_of(Severity::error)) + " " +
             m.text("report.framework_blocked", {{"line", line.text}, {"ids", blocked}}) + "\n";
      continue;
    }
    out += line.present
               ? paint(symbol_of(Severity::ok), style_of(Severity::ok)) + " " + line.text + "\n"
               : paint("·", fmt::emphasis::faint) + " " + line.text + "\n";
  }
}

void render_verdict(std::string& out, const Report& report, const kb::Messages& m,
                    const Painter& paint) {
  const auto to_fix = findings_to_fix(report.findings);
  out += "\n";
  if (to_fix.empty()) {
    out += " " + paint(m.text("report.no_problems"), style_of(Severity::ok)) + "\n";
  } else {
    const Finding& first = *to_fix.front();
    out += " " +
           paint(m.text("report.fix_first",
                        {{"title", first.title}, {"id", chain_of(first, report.findings)}}),
                 fmt::emphasis::bold) +
           "\n";
    for (const auto& fix : first.fix)
      out += "   " + fix + "\n";
    std::vector<std::string> rest;
    for (size_t i = 1; i < to_fix.size(); ++i) {
      const Finding& next = *to_fix[i];
      const std::string item = m.text("report.then_item", {{"id", next.id}, {"title", next.title}});
      rest.push_back(next.follows_from
                         ? m.text("report.follows", {{"id", item}, {"root", *next.follows_from}})
                         : item);
    }
    if (!rest.empty()) {
      out += " " +
             m.text("report.then", {{"ids", text::join(rest, m.text("report.then_separator"))}}) +
             "\n";
    }
  }
  out += " " +
         m.text("report.counts", {{"errors", std::to_string(report.summary.errors)},
                                  {"warnings", std::to_string(report.summary.warnings)}}) +
         " · " + m.text(report.summary.gpu_ready ? "report.gpu_ready.yes" : "report.gpu_ready.no") +
         "\n";
  // Ready by the files: the next step is to see the GPU compute.
  if (report.summary.gpu_ready) out += " " + m.text("report.next_verify") + "\n";
}

}  // namespace

std::string render_text(const Report& report, const kb::Messages& m, bool color) {
  const Painter paint(color);
  std::string out = paint(m.text("report.header", {{"tool", report.tool},
                                                   {"os", describe_os(report.facts, m)},
                                                   {"elapsed", std::to_string(report.elapsed_ms)}}),
                          fmt::emphasis::bold) +
                    "\n\n";
  for (Layer layer : kAllLayers)
    render_layer(out, report, layer, m, paint);
  render_verdict(out, report, m, paint);
  // A Windows machine's paths as Windows writes them (the System spells them with '/').
  return report.facts.os.family == "windows" ? windows_paths::in_text(out) : out;
}

}  // namespace gpuvet::report
