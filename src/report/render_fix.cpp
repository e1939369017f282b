#include "report/render_fix.hpp"

#include <nlohmann/json.hpp>

#include "core/windows_paths.hpp"
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

std::string target_of(const fix::Action& a, bool windows) {
  // A registry value: HKCU\Environment\Path, as regedit shows it.
  if (windows &&
      (a.kind == fix::ActionKind::set_registry || a.kind == fix::ActionKind::set_env_persistent)) {
    return windows_paths::native(a.target) + (a.value_name.empty() ? "" : "\\" + a.value_name);
  }
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
  // A Windows machine's paths as Windows writes them (the System spells them with '/'); the
  // lines before and after a change are shown byte for byte as they are written.
  const auto w = [&](const std::string& text) {
    return plan.windows ? windows_paths::in_text(text) : text;
  };
  std::string out;
  if (plan.fixes.empty()) {
    out += messages.text("fix.text.none") + "\n";
  } else {
    out += paint(messages.text("fix.text.heading"), fmt::emphasis::bold) + "\n";
  }
  for (const auto& f : plan.fixes) {
    out += fmt::format("\n  {}  ({})\n", paint(f.id, fmt::emphasis::bold), f.finding);
    out += "    " + w(f.summary) + "\n";
    if (f.only_by_id) out += "    " + messages.text("fix.text.only_by_id", {{"id", f.id}}) + "\n";
    if (f.needs_admin)
      out += "    " +
             paint(messages.text("fix.text.needs_admin"), fmt::fg(fmt::terminal_color::yellow)) +
             "\n";
    for (const auto& a : f.actions) {
      out += fmt::format("    {} {}\n", fix::to_string(a.kind), w(target_of(a, plan.windows)));
      // A move's before and after are paths; a file's or a value's lines are shown as written.
      const auto shown = [&](const std::string& text) {
        return a.kind == fix::ActionKind::move_file ? w(text) : text;
      };
      if (!a.before.empty())
        out += "      " + paint("- " + shown(a.before), fmt::fg(fmt::terminal_color::red)) + "\n";
      out += "      " + paint("+ " + shown(a.after), fmt::fg(fmt::terminal_color::green)) + "\n";
    }
  }
  if (!plan.refused.empty()) {
    out += "\n" + paint(messages.text("fix.text.refused_heading"), fmt::emphasis::bold) + "\n";
    for (const auto& r : plan.refused)
      out += fmt::format("  {} {}: {}\n", r.finding, w(r.target), w(r.reason));
  }
  if (!plan.manual.empty()) {
    out += "\n" + paint(messages.text("fix.text.manual_heading"), fmt::emphasis::bold) + "\n";
    for (const auto& m : plan.manual) {
      out += fmt::format("  {}: {}\n", m.finding, w(m.title));
      for (const auto& step : m.steps)
        out += "    - " + w(step) + "\n";
    }
  }
  if (!plan.fixes.empty()) out += "\n" + messages.text("fix.text.how_to_apply") + "\n";
  return out;
}

}  // namespace gpuvet::report
