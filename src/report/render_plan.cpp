#include "report/render_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "core/windows_paths.hpp"
#include "frameworks/framework.hpp"
#include "report/markdown.hpp"
#include "report/paint.hpp"

namespace gpuvet::report {

namespace {

using ordered = nlohmann::ordered_json;

ordered or_null(const std::optional<std::string>& value) {
  return value ? ordered(*value) : ordered(nullptr);
}

std::optional<std::string> origin_or_null(const std::string& origin) {
  return origin.empty() ? std::nullopt : std::optional<std::string>(origin);
}

ordered option_json(const plan::Option& o) {
  const plan::Build& b = o.build;
  ordered steps = ordered::array();
  for (const auto& s : o.steps) {
    // `commands` in the platform's shell (named by `shell`); on Windows `powershell` has the
    // same commands for PowerShell, line for line.
    steps.push_back({{"title", s.title},
                     {"commands", s.commands},
                     {"shell", o.platform == "windows" ? "cmd" : "sh"},
                     {"powershell", s.powershell}});
  }
  ordered j = {{"platform", o.platform},
               {"framework", b.framework},
               {"framework_version", b.version.empty() ? ordered(nullptr) : ordered(b.version)},
               {"package", o.package_spec},
               {"python", {{"min", or_null(b.python_min)}, {"max", or_null(b.python_max)}}},
               {"cuda", or_null(b.cuda)},
               {"cudnn", or_null(b.cudnn)},
               {"min_driver", or_null(o.min_driver)},
               {"steps", steps},
               {"notes", o.notes},
               {"verified", o.verified},
               {"unknowns", o.unknowns}};
  j["variant"] = b.variant.empty() ? ordered(nullptr) : ordered(b.variant);
  j["index_url"] = or_null(o.index_url);
  j["driver_floor"] = or_null(o.driver_floor);
  j["min_compute_capability"] = or_null(b.min_cc);
  j["wheels_bring_cuda"] = b.wheels_bring_cuda;
  j["environment_python"] =
      o.environment_python.empty() ? ordered(nullptr) : ordered(o.environment_python);
  j["alternative"] = o.alternative;
  j["sources"] = b.sources;
  return j;
}

std::string display_name(const std::string& family) {
  const frameworks::Framework* framework = frameworks::find(family);
  return framework ? std::string(framework->display_name) : family;
}

std::string summary_line(const plan::Option& o, const kb::Messages& m) {
  const plan::Build& b = o.build;
  std::vector<std::string> parts = {o.platform, o.package_spec};
  if (o.index_url) parts.back() += " (" + o.index_option + " " + *o.index_url + ")";
  if (b.python_min && b.python_max)
    parts.push_back(m.text("plan.text.python", {{"min", *b.python_min}, {"max", *b.python_max}}));
  parts.push_back(b.cuda ? "CUDA " + *b.cuda : m.text("plan.text.cuda_unknown"));
  // A build without a cuDNN of its own (CuPy) says nothing about it unless its wheels bring one.
  if (b.cudnn) {
    parts.push_back("cuDNN " + *b.cudnn);
  } else if (b.wheels_bring_cuda) {
    parts.push_back("cuDNN " + m.text("plan.text.cudnn_with_wheels"));
  }
  parts.push_back(o.min_driver ? m.text("plan.text.driver", {{"min", *o.min_driver}})
                               : m.text("plan.text.driver_unknown_min"));
  std::string line = text::join(parts, m.text("plan.text.separator"));
  if (!o.verified) line += m.text("plan.text.unverified_mark");
  return line;
}

// "8.6 (given)": a value and where it came from.
std::string with_origin(const std::string& value, const std::string& origin,
                        const kb::Messages& m) {
  if (origin.empty()) return value;
  return m.text("plan.text.with_origin",
                {{"value", value}, {"origin", m.text("plan.text.origin." + origin)}});
}

// "TensorFlow fits on linux", with what was not checked (no GPU or driver given).
std::string feasible_text(const plan::Request& r, const std::string& wish, const kb::Messages& m) {
  std::vector<std::string> unchecked;
  if (!r.compute_capability) unchecked.push_back(m.text("plan.text.unchecked_gpu"));
  if (!r.driver) unchecked.push_back(m.text("plan.text.unchecked_driver"));
  if (unchecked.empty()) return m.text("plan.text.feasible", {{"wish", wish}, {"os", r.os}});
  return m.text("plan.text.feasible_unchecked",
                {{"wish", wish},
                 {"os", r.os},
                 {"unchecked", text::join(unchecked, m.text("cli.list_separator"))}});
}

std::string request_line(const plan::Request& r, const std::string& wish, const kb::Messages& m) {
  const std::string unknown = m.text("plan.text.unknown");
  std::string gpu = unknown;
  if (r.gpu || r.compute_capability) {
    const std::string cc = r.compute_capability.value_or(unknown);
    gpu = with_origin(r.gpu ? m.text("plan.text.gpu", {{"gpu", *r.gpu}, {"cc", cc}})
                            : m.text("plan.text.gpu_cc", {{"cc", cc}}),
                      r.origins.gpu, m);
  }
  std::string python;
  if (r.python) {
    python = with_origin(*r.python, r.origins.python, m);
  } else if (r.preferred_python) {
    python = m.text("plan.text.python_preferred", {{"python", *r.preferred_python}});
  } else {
    python = m.text("plan.text.python_any");
  }
  return m.text("plan.text.request",
                {{"wish", wish},
                 {"os", with_origin(r.os, r.origins.os, m)},
                 {"gpu", gpu},
                 {"driver", r.driver ? with_origin(*r.driver, r.origins.driver, m) : unknown},
                 {"python", python}});
}

// A step's lines: notes for the reader (a comment in every shell: "# …", or "rem …" in cmd
// beside "# …" in PowerShell), then the commands of each shell.
struct StepLines {
  std::vector<std::string> notes;
  std::vector<std::string> commands;    // sh, or cmd on Windows
  std::vector<std::string> powershell;  // Windows only
  bool windows = false;
  bool same = true;  // both of Windows' shells run the same lines
};

StepLines step_lines(const plan::Step& step) {
  StepLines out;
  out.windows = !step.powershell.empty();
  for (size_t i = 0; i < step.commands.size(); ++i) {
    const std::string& command = step.commands[i];
    const std::string powershell = i < step.powershell.size() ? step.powershell[i] : "";
    if (!out.windows && command.starts_with("# ")) {
      out.notes.push_back(command.substr(2));
      continue;
    }
    if (out.windows && command.starts_with("rem ") && powershell.starts_with("# ") &&
        command.substr(4) == powershell.substr(2)) {
      out.notes.push_back(command.substr(4));
      continue;
    }
    out.commands.push_back(command);
    if (out.windows) out.powershell.push_back(powershell);
  }
  out.same = !out.windows || out.commands == out.powershell;
  return out;
}

// Whether what a plan prints is for Windows: its paths are then spelled as Windows does.
bool for_windows(const plan::Plan& plan) {
  if (plan.request.os == "windows") return true;
  return std::any_of(plan.options.begin(), plan.options.end(),
                     [](const plan::Option& o) { return o.platform == "windows"; });
}

const char* outcome_name(plan::Outcome outcome) {
  switch (outcome) {
    case plan::Outcome::feasible:
      return "feasible";
    case plan::Outcome::unverified:
      return "unverified";
    case plan::Outcome::infeasible:
      break;
  }
  return "infeasible";
}

}  // namespace

std::string render_plan_json(const plan::Plan& plan, const std::string& kb_version) {
  const plan::Request& r = plan.request;
  ordered options = ordered::array();
  for (const auto& o : plan.options)
    options.push_back(option_json(o));
  ordered blockers = ordered::array();
  for (const auto& b : plan.blockers)
    blockers.push_back({{"id", b.id}, {"why", b.why}});
  ordered j = {{"schema", "gpuvet.plan/1"},
               {"kb_version", kb_version},
               {"request",
                {{"framework", r.framework},
                 {"version", or_null(r.version)},
                 {"os", r.os},
                 {"gpu", or_null(r.gpu)},
                 {"compute_capability", or_null(r.compute_capability)},
                 {"driver", or_null(r.driver)},
                 {"python", or_null(r.python)},
                 {"cuda", or_null(r.cuda)},
                 {"preferred_python", or_null(r.preferred_python)},
                 {"environment", or_null(r.env_path)},
                 {"origins",
                  {{"os", or_null(origin_or_null(r.origins.os))},
                   {"gpu", or_null(origin_or_null(r.origins.gpu))},
                   {"driver", or_null(origin_or_null(r.origins.driver))},
                   {"python", or_null(origin_or_null(r.origins.python))}}}}},
               {"feasible", plan.feasible},
               {"outcome", outcome_name(plan.outcome)},
               {"options", options},
               {"blockers", blockers}};
  return j.dump(2) + "\n";
}

std::string render_plan_text(const plan::Plan& plan, const kb::Messages& m, bool color) {
  const Painter paint(color);
  const plan::Request& r = plan.request;
  std::string out;
  const std::string wish =
      display_name(r.framework) + (r.version ? " " + *r.version : std::string());
  out += request_line(r, wish, m) + "\n\n";
  if (plan.feasible) {
    out += " " + paint("✔", fmt::fg(fmt::terminal_color::green)) + " " + feasible_text(r, wish, m) +
           "\n";
  }
  if (plan.outcome == plan::Outcome::unverified) {
    out += " " + paint("⚠", fmt::fg(fmt::terminal_color::yellow)) + " " +
           m.text("plan.text.unverified", {{"wish", wish}, {"os", r.os}}) + "\n";
  }
  for (const auto& b : plan.blockers) {
    out += " " + paint("✖", fmt::fg(fmt::terminal_color::red)) + " " + b.why + "\n   " +
           paint(b.id, fmt::emphasis::faint) + "\n";
  }
  if (!plan.options.empty()) {
    out += "\n " +
           m.text(plan.outcome != plan::Outcome::infeasible ? "plan.text.options"
                                                            : "plan.text.alternatives") +
           "\n";
  } else if (plan.outcome == plan::Outcome::infeasible) {
    out += "\n " + m.text("plan.text.no_alternative") + "\n";
  }
  for (size_t i = 0; i < plan.options.size(); ++i) {
    const plan::Option& o = plan.options[i];
    out += fmt::format("  {}. {}\n", i + 1, paint(summary_line(o, m), fmt::emphasis::bold));
    for (const auto& unknown : o.unknowns)
      out += "     " + paint("⚠", fmt::fg(fmt::terminal_color::yellow)) + " " + unknown + "\n";
    for (const auto& note : o.notes)
      out += "     · " + note + "\n";
    for (const auto& step : o.steps) {
      out += "     " + step.title + "\n";
      const StepLines lines = step_lines(step);
      for (const auto& note : lines.notes)
        out += "         " + paint("# " + note, fmt::emphasis::faint) + "\n";
      if (lines.same) {
        for (const auto& command : lines.commands)
          out += "         " + command + "\n";
        continue;
      }
      const std::string colon = m.text("cli.label.colon");
      out += "         " + paint(m.text("plan.shell.cmd") + colon, fmt::emphasis::faint) + "\n";
      for (const auto& command : lines.commands)
        out += "           " + command + "\n";
      out +=
          "         " + paint(m.text("plan.shell.powershell") + colon, fmt::emphasis::faint) + "\n";
      for (const auto& command : lines.powershell)
        out += "           " + command + "\n";
    }
  }
  return for_windows(plan) ? windows_paths::in_text(out) : out;
}

std::string render_plan_md(const plan::Plan& plan, const kb::Messages& m) {
  const plan::Request& r = plan.request;
  const std::string wish =
      display_name(r.framework) + (r.version ? " " + *r.version : std::string());
  const std::string colon = m.text("cli.label.colon");
  // "gpuvet plan: TensorFlow 2.1"; a full-width colon takes no space after it.
  const std::string title_colon = colon == ":" ? ": " : colon;
  std::string out =
      fmt::format("## {}{}{}\n\n**{}{}** {}\n\n", m.text("plan.md.title"), title_colon, wish,
                  m.text("plan.md.request"), colon, md::line(request_line(r, wish, m)));
  if (plan.feasible) {
    out += "✔ " + feasible_text(r, wish, m) + "\n\n";
  }
  if (plan.outcome == plan::Outcome::unverified) {
    out += "⚠ " + m.text("plan.text.unverified", {{"wish", wish}, {"os", r.os}}) + "\n\n";
  }
  if (!plan.blockers.empty()) {
    out += fmt::format("### {}\n\n", m.text("plan.md.blockers"));
    for (const auto& b : plan.blockers)
      out += "- ✖ " +
             m.text("plan.md.blocker", {{"why", md::line(b.why)}, {"id", md::code(b.id)}}) + "\n";
    out += "\n";
  }
  if (!plan.options.empty()) {
    out += fmt::format(
        "### {}\n\n", m.text(plan.outcome != plan::Outcome::infeasible ? "plan.text.options"
                                                                       : "plan.text.alternatives"));
  } else if (plan.outcome == plan::Outcome::infeasible) {
    out += m.text("plan.text.no_alternative") + "\n";
  }
  for (size_t i = 0; i < plan.options.size(); ++i) {
    const plan::Option& o = plan.options[i];
    out += fmt::format("#### {}. {}\n\n", i + 1, md::line(summary_line(o, m)));
    if (!o.unknowns.empty()) {
      out += fmt::format("**{}{}**\n\n", m.text("plan.md.unknowns"), colon);
      for (const auto& unknown : o.unknowns)
        out += "- ⚠ " + md::line(unknown) + "\n";
      out += "\n";
    }
    if (!o.notes.empty()) {
      out += fmt::format("**{}{}**\n\n", m.text("plan.md.notes"), colon);
      for (const auto& note : o.notes)
        out += "- " + md::line(note) + "\n";
      out += "\n";
    }
    out += fmt::format("**{}{}**\n\n", m.text("plan.md.steps"), colon);
    for (size_t n = 0; n < o.steps.size(); ++n) {
      const plan::Step& step = o.steps[n];
      const StepLines lines = step_lines(step);
      out += fmt::format("{}. {}\n", n + 1, md::line(step.title));
      const std::string indent(fmt::format("{}. ", n + 1).size(), ' ');
      for (const auto& note : lines.notes)
        out += "\n" + indent + md::line(note) + "\n";
      if (lines.commands.empty()) {
        out += "\n";
        continue;
      }
      if (!lines.windows) {
        out += "\n" + md::fence("sh", lines.commands, indent) + "\n";
        continue;
      }
      if (lines.same) {
        out += "\n" + indent + m.text("plan.shell.both") + colon + "\n\n" +
               md::fence("bat", lines.commands, indent) + "\n";
        continue;
      }
      out += "\n" + indent + m.text("plan.shell.cmd") + colon + "\n\n" +
             md::fence("bat", lines.commands, indent) + "\n" + indent +
             m.text("plan.shell.powershell") + colon + "\n\n" +
             md::fence("powershell", lines.powershell, indent) + "\n";
    }
  }
  return for_windows(plan) ? windows_paths::in_text(out) : out;
}

}  // namespace gpuvet::report
