#include "report/render_plan.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "frameworks/framework.hpp"
#include "report/paint.hpp"

namespace gpuvet::report {

namespace {

using ordered = nlohmann::ordered_json;

ordered or_null(const std::optional<std::string>& value) {
  return value ? ordered(*value) : ordered(nullptr);
}

ordered option_json(const plan::Option& o) {
  const plan::Build& b = o.build;
  ordered steps = ordered::array();
  for (const auto& s : o.steps)
    steps.push_back({{"title", s.title}, {"commands", s.commands}});
  ordered j = {{"platform", o.platform},
               {"framework", b.framework},
               {"framework_version", b.version.empty() ? ordered(nullptr) : ordered(b.version)},
               {"package", o.package_spec},
               {"python", {{"min", or_null(b.python_min)}, {"max", or_null(b.python_max)}}},
               {"cuda", or_null(b.cuda)},
               {"cudnn", or_null(b.cudnn)},
               {"min_driver", or_null(o.min_driver)},
               {"steps", steps},
               {"notes", o.notes}};
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
  std::string line = fmt::format("{}, {}", o.platform, o.package_spec);
  if (o.index_url) line += " (" + o.index_option + " " + *o.index_url + ")";
  if (b.python_min && b.python_max) {
    line += ", " + m.text("plan.text.python", {{"min", *b.python_min}, {"max", *b.python_max}});
  }
  line += ", CUDA " + b.cuda.value_or("?");
  // A build without a cuDNN of its own (CuPy) says nothing about it unless its wheels bring one.
  if (b.cudnn) {
    line += ", cuDNN " + *b.cudnn;
  } else if (b.wheels_bring_cuda) {
    line += ", cuDNN " + m.text("plan.text.cudnn_with_wheels");
  }
  line += ", " + m.text("plan.text.driver", {{"min", o.min_driver.value_or("?")}});
  return line;
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
                 {"cuda", or_null(r.cuda)}}},
               {"feasible", plan.feasible},
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
  out += m.text("plan.text.request", {{"wish", wish},
                                      {"os", r.os},
                                      {"gpu", r.gpu.value_or(m.text("plan.text.unknown"))},
                                      {"cc", r.compute_capability.value_or("?")},
                                      {"driver", r.driver.value_or(m.text("plan.text.unknown"))},
                                      {"python", r.python.value_or(m.text("plan.text.unknown"))}}) +
         "\n\n";
  if (plan.feasible) {
    std::vector<std::string> unchecked;
    if (!r.compute_capability) unchecked.push_back(m.text("plan.text.unchecked_gpu"));
    if (!r.driver) unchecked.push_back(m.text("plan.text.unchecked_driver"));
    if (!r.python) unchecked.push_back(m.text("plan.text.unchecked_python"));
    out +=
        " " + paint("✔", fmt::fg(fmt::terminal_color::green)) + " " +
        (unchecked.empty()
             ? m.text("plan.text.feasible", {{"wish", wish}, {"os", r.os}})
             : m.text("plan.text.feasible_unchecked",
                      {{"wish", wish}, {"os", r.os}, {"unchecked", text::join(unchecked, ", ")}})) +
        "\n";
  }
  for (const auto& b : plan.blockers) {
    out += " " + paint("✖", fmt::fg(fmt::terminal_color::red)) + " " + b.why + "\n   " +
           paint(b.id, fmt::emphasis::faint) + "\n";
  }
  if (!plan.options.empty()) {
    out += "\n " + m.text(plan.feasible ? "plan.text.options" : "plan.text.alternatives") + "\n";
  } else if (!plan.feasible) {
    out += "\n " + m.text("plan.text.no_alternative") + "\n";
  }
  for (size_t i = 0; i < plan.options.size(); ++i) {
    const plan::Option& o = plan.options[i];
    out += fmt::format("  {}. {}\n", i + 1, paint(summary_line(o, m), fmt::emphasis::bold));
    for (const auto& note : o.notes)
      out += "     · " + note + "\n";
    for (const auto& step : o.steps) {
      out += "     " + step.title + "\n";
      for (const auto& command : step.commands)
        out += "         " + command + "\n";
    }
  }
  return out;
}

}  // namespace gpuvet::report
