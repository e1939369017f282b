#include "report/render_fix.hpp"

#include <nlohmann/json.hpp>

#include "report/paint.hpp"

namespace gpuvet::report {

namespace {

using json = nlohmann::ordered_json;

json action_json(const fix::Action& a) {
  json j = {{"kind", std::string(fix::to_string(a.kind))}, {"target", a.target}};
  if (!a.value_name.empty()) j["value"] = a.value_name;
  if (a.line) j["line"] = *a.line;
  j["before"] = a.before;
  j["after"] = a.after;
  return j;
}

std::string target_of(const fix::Action& a) {
  if (!a.value_name.empty()) return a.target + "/" + a.value_name;
  if (a.line) return fmt::format("{}:{}", a.target, *a.line);
  return a.target;
}

}  // namespace

std::string render_fix_json(const fix::FixPlan& plan) {
  json out = {{"schema", "gpuvet.fix/1"}, {"stamp", plan.stamp}, {"fixes", json::array()}};
  for (const auto& f : plan.fixes) {
    json actions = json::array();
    for (const auto& a : f.actions)
      actions.push_back(action_json(a));
    out["fixes"].push_back({{"id", f.id},
                            {"finding", f.finding},
                            {"summary", f.summary},
                            {"needs_admin", f.needs_admin},
                            {"only_by_id", f.only_by_id},
                            {"actions", std::move(actions)}});
  }
  out["refused"] = json::array();
  for (const auto& r : plan.refused)
    out["refused"].push_back({{"finding", r.finding}, {"target", r.target}, {"reason", r.reason}});
  out["manual"] = json::array();
  for (const auto& m : plan.manual)
    out["manual"].push_back({{"finding", m.finding}, {"title", m.title}, {"steps", m.steps}});
  return out.dump(2) + "\n";
}

std::string render_fix_text(const fix::FixPlan& plan, const kb::Messages& messages, bool color) {
  const Painter paint(color);
  std::string out;
  if (plan.fixes.empty()) {
    out += messages.text("fix.text.none") + "\n";
  } else {
    out += paint(messages.text("fix.text.heading"), fmt::emphasis::bold) + "\n";
  }
  for (const auto& f : plan.fixes) {
    out += fmt::format("\n  {}  ({})\n", paint(f.id, fmt::emphasis::bold), f.finding);
    out += "    " + f.summary + "\n";
    if (f.only_by_id) out += "    " + messages.text("fix.text.only_by_id", {{"id", f.id}}) + "\n";
    if (f.needs_admin)
      out += "    " +
             paint(messages.text("fix.text.needs_admin"), fmt::fg(fmt::terminal_color::yellow)) +
             "\n";
    for (const auto& a : f.actions) {
      out += fmt::format("    {} {}\n", fix::to_string(a.kind), target_of(a));
      if (!a.before.empty())
        out += "      " + paint("- " + a.before, fmt::fg(fmt::terminal_color::red)) + "\n";
      out += "      " + paint("+ " + a.after, fmt::fg(fmt::terminal_color::green)) + "\n";
    }
  }
  if (!plan.refused.empty()) {
    out += "\n" + paint(messages.text("fix.text.refused_heading"), fmt::emphasis::bold) + "\n";
    for (const auto& r : plan.refused)
      out += fmt::format("  {} {}: {}\n", r.finding, r.target, r.reason);
  }
  if (!plan.manual.empty()) {
    out += "\n" + paint(messages.text("fix.text.manual_heading"), fmt::emphasis::bold) + "\n";
    for (const auto& m : plan.manual) {
      out += fmt::format("  {}: {}\n", m.finding, m.title);
      for (const auto& step : m.steps)
        out += "    - " + step + "\n";
    }
  }
  if (!plan.fixes.empty()) out += "\n" + messages.text("fix.text.how_to_apply") + "\n";
  return out;
}

}  // namespace gpuvet::report
