// The two faces of explain's causes. Renderers decide nothing.
#include "report/render_explain.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/windows_paths.hpp"
#include "report/markdown.hpp"
#include "report/paint.hpp"

namespace gpuvet::report {

using explain::Cause;

namespace {

const char* state_name(explain::FactsUse::State state) {
  switch (state) {
    case explain::FactsUse::State::used:
      return "used";
    case explain::FactsUse::State::other_machine:
      return "other_machine";
    case explain::FactsUse::State::unknown_machine:
      return "unknown_machine";
    case explain::FactsUse::State::none:
      break;
  }
  return "none";
}

// A Windows log, or a Windows machine's facts: the causes' words spell paths as Windows does.
// The log's own lines are quoted as they are.
bool about_windows(const explain::FactsUse& facts) {
  return facts.log_platform == "windows" ||
         (facts.state == explain::FactsUse::State::used && facts.machine_platform == "windows");
}

std::string words(const std::string& text, const explain::FactsUse& facts) {
  return about_windows(facts) ? windows_paths::in_text(text) : text;
}

// Checked against the machine, a cause its facts cannot show either way is undecided there.
std::string state_text(const Cause& c, const kb::Messages& m, const explain::FactsUse& facts) {
  if (c.confirmed_by_facts) {
    return m.text(*c.confirmed_by_facts ? "explain.state.confirmed" : "explain.state.contradicted");
  }
  return m.text(facts.state == explain::FactsUse::State::used ? "explain.state.undecided"
                                                              : "explain.state.unchecked");
}

std::string confidence_text(const Cause& c, const kb::Messages& m, const explain::FactsUse& facts) {
  return m.text("explain.confidence",
                {{"percent", std::to_string(static_cast<int>(c.confidence * 100 + 0.5))},
                 {"state", state_text(c, m, facts)}});
}

// A reported case as the text and Markdown show it: its thread and the fix that worked there.
std::string similar_report(const explain::SimilarReport& r, const kb::Messages& m) {
  return m.text("explain.similar_report", {{"url", r.url}, {"fix", r.fix}});
}

nlohmann::ordered_json or_null(const std::string& value) {
  return value.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(value);
}

}  // namespace

std::string render_explain_json(const std::vector<Cause>& causes, const explain::FactsUse& facts) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& c : causes) {
    nlohmann::ordered_json evidence = nlohmann::ordered_json::array();
    for (const auto& e : c.evidence)
      evidence.push_back({{"line", e.line}, {"text", e.text}});
    nlohmann::ordered_json similar = nlohmann::ordered_json::array();
    for (const auto& r : c.reports)
      similar.push_back({{"case", r.id},
                         {"url", r.url},
                         {"fix", r.fix},
                         {"similarity", std::round(r.similarity * 100) / 100}});
    list.push_back(
        {{"id", c.id},
         {"confidence", std::round(c.confidence * 100) / 100},
         {"evidence", evidence},
         {"why", c.why},
         {"fix", c.fix},
         {"confirmed_by_facts", c.confirmed_by_facts ? nlohmann::ordered_json(*c.confirmed_by_facts)
                                                     : nlohmann::ordered_json(nullptr)},
         {"alternative", c.alternative},
         {"machine_only", c.machine_only},
         {"off_platform", c.off_platform},
         {"signatures", c.signatures},
         {"similar", similar},
         {"captures", c.captures}});
  }
  const nlohmann::ordered_json doc = {{"schema", explain::kExplainSchema},
                                      {"causes", list},
                                      {"unrecognized", causes.empty()},
                                      {"log_platform", or_null(facts.log_platform)},
                                      {"facts",
                                       {{"state", state_name(facts.state)},
                                        {"machine_platform", or_null(facts.machine_platform)},
                                        {"note", or_null(facts.note)}}}};
  return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string render_explain_text(const std::vector<Cause>& causes, const kb::Messages& m, bool color,
                                const explain::FactsUse& facts) {
  const report::Painter paint(color);
  std::string out;
  if (!facts.note.empty()) out += paint(facts.note, fmt::emphasis::faint) + "\n\n";
  if (causes.empty()) return out + m.text("explain.none") + "\n";
  for (size_t i = 0; i < causes.size(); ++i) {
    const Cause& c = causes[i];
    out += paint(fmt::format("{}. {}", i + 1, c.id), fmt::emphasis::bold) + "  " +
           confidence_text(c, m, facts) + "\n";
    out += "   " + words(c.why, facts) + "\n";
    for (const auto& e : c.evidence) {
      out += "   " +
             paint(m.text("explain.line", {{"line", std::to_string(e.line)}, {"text", e.text}}),
                   fmt::emphasis::faint) +
             "\n";
    }
    for (const auto& r : c.reports)
      out += "   " + paint(similar_report(r, m), fmt::emphasis::faint) + "\n";
    for (const auto& f : c.fix)
      out += "   " + m.text("report.fix", {{"text", words(f, facts)}}) + "\n";
    if (i + 1 < causes.size()) out += "\n";
  }
  return out;
}

std::string render_explain_md(const std::vector<Cause>& causes, const kb::Messages& m,
                              const explain::FactsUse& facts) {
  std::string out = fmt::format("## {}\n\n", m.text("explain.md.title"));
  if (!facts.note.empty()) out += "> " + md::line(facts.note) + "\n\n";
  if (causes.empty()) return out + md::line(m.text("explain.none")) + "\n";
  for (size_t i = 0; i < causes.size(); ++i) {
    const Cause& c = causes[i];
    out += fmt::format("### {}. {} · {}\n\n{}\n\n", i + 1, md::code(c.id),
                       confidence_text(c, m, facts), md::line(words(c.why, facts)));
    if (!c.evidence.empty()) {
      std::vector<std::string> lines;
      for (const auto& e : c.evidence)
        lines.push_back(
            m.text("explain.line", {{"line", std::to_string(e.line)}, {"text", e.text}}));
      out += fmt::format("**{}{}**\n\n{}\n", m.text("explain.md.log_lines"),
                         m.text("cli.label.colon"), md::fence("text", lines));
    }
    if (!c.reports.empty()) {
      out += fmt::format("**{}{}**\n\n", m.text("explain.md.similar"), m.text("cli.label.colon"));
      for (const auto& r : c.reports)
        out += "- " + md::line(similar_report(r, m)) + "\n";
      out += "\n";
    }
    if (!c.fix.empty()) {
      out += fmt::format("**{}{}**\n\n", m.text("explain.md.fix"), m.text("cli.label.colon"));
      for (const auto& f : c.fix)
        out += "- " + md::line(words(f, facts)) + "\n";
      out += "\n";
    }
  }
  return out;
}

}  // namespace gpuvet::report
