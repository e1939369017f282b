#include "cli/plan_verb.hpp"

#include <fmt/format.h>

#include <cstdio>

#include <CLI/CLI.hpp>

#include "cli/common.hpp"
#include "cli/verb.hpp"
#include "core/text.hpp"
#include "core/version.hpp"
#include "frameworks/framework.hpp"
#include "kb/queries.hpp"
#include "pipeline/diagnose.hpp"
#include "plan/plan.hpp"
#include "report/render_plan.hpp"

namespace gpuvet::cli {

namespace {

// "8.6", "452.06", "3.10": digits and dots, with the number of parts a version of that kind has.
bool well_formed(const std::string& value, size_t min_parts, size_t max_parts) {
  const size_t parts = text::split(value, '.').size();
  return !value.empty() && version::is_dotted(value) && parts >= min_parts && parts <= max_parts;
}

Result<plan::Request> request_from_flags(const PlanArgs& args, const kb::Kb& kb,
                                         const kb::Messages& m) {
  auto spec = frameworks::parse_spec(args.spec, kb);
  if (!spec) return spec.error();
  plan::Request r;
  r.framework = std::string(spec->framework->family);
  r.version = spec->version;
  if (r.version && !version::is_dotted(*r.version)) {
    return make_error(m.text("plan.error.version_format", {{"spec", args.spec}}));
  }
  r.os = args.os;
  if (!r.os.empty()) r.origins.os = "flag";
  if (!args.cc.empty()) {
    if (!well_formed(args.cc, 2, 2)) return make_error(m.text("plan.error.cc_format"));
    r.compute_capability = args.cc;
  }
  if (!args.gpu.empty()) {
    auto cc = plan::compute_capability_of(kb, m, args.gpu);
    if (!cc) return cc.error();
    r.gpu = args.gpu;
    r.compute_capability = *cc;
  }
  if (r.compute_capability) r.origins.gpu = "flag";
  if (!args.driver.empty()) {
    if (!well_formed(args.driver, 1, 4)) return make_error(m.text("plan.error.driver_format"));
    r.driver = args.driver;
    r.origins.driver = "flag";
  }
  if (!args.python.empty()) {
    if (!well_formed(args.python, 2, 3)) return make_error(m.text("plan.error.python_format"));
    r.python = version::prefix(args.python, 2);
    r.origins.python = "flag";
  }
  if (!args.cuda.empty()) {
    if (!well_formed(args.cuda, 1, 2)) return make_error(m.text("plan.error.cuda_format"));
    r.cuda = args.cuda;
  }
  return r;
}

bool has_open_fields(const plan::Request& r, const PlanArgs& args) {
  return r.os.empty() || !r.compute_capability || !r.driver || !r.python || args.here ||
         !args.env.empty();
}

// format: text, json or md (--format; --json is json).
int plan_as(const PlanArgs& args, const std::string& format, const kb::Kb& kb,
            const kb::Messages& messages,
            const std::function<Result<std::unique_ptr<sys::System>>()>& open_system, bool color) {
  auto request = request_from_flags(args, kb, messages);
  if (!request) return fail(request.error());
  if (has_open_fields(*request, args)) {
    auto system = open_system();
    if (!system) return fail(system.error());
    auto report = pipeline::diagnose(**system, kb, messages);
    if (!report) return fail(report.error());
    const plan::MachineUse use{args.snapshot.empty() ? "machine" : "snapshot", args.env, args.here};
    auto completed =
        plan::complete_from_facts(std::move(*request), report->facts, kb, messages, use);
    if (!completed) return fail(completed.error());
    request = std::move(*completed);
  }
  auto result = plan::make_plan(*request, kb, messages);
  if (!result) return fail(result.error());
  std::vector<std::string> written;
  if (!args.write_dir.empty() && !result->options.empty()) {
    auto files = plan::write_environment_files(result->options.front(), args.write_dir, args.force);
    if (!files) return fail(files.error());
    written = std::move(*files);
  }
  if (format == "json") {
    print(report::render_plan_json(*result, kb.version()));
  } else {
    std::string out = format == "md" ? report::render_plan_md(*result, messages)
                                     : report::render_plan_text(*result, messages, color);
    if (!written.empty()) {
      out +=
          "\n " + messages.text("plan.text.written", {{"files", text::join(written, ", ")}}) + "\n";
    }
    print(out);
  }
  return result->outcome == plan::Outcome::feasible ? kExitOk : kExitFound;
}

}  // namespace

int run_plan(const PlanArgs& args, const kb::Kb& kb, const kb::Messages& messages,
             const std::function<Result<std::unique_ptr<sys::System>>()>& open_system, bool color) {
  return plan_as(args, args.json ? "json" : "text", kb, messages, open_system, color);
}

namespace {

struct PlanOptions {
  PlanArgs args;
  CommonOptions common;
  std::string format = "text";
};

int run_plan_verb(const PlanOptions& options) {
  auto context = open_context(options.common);
  if (!context) return fail(context.error());
  const auto open = [&] { return open_system(options.args.snapshot); };
  return plan_as(options.args, options.args.json ? "json" : options.format, context->kb,
                 context->messages, open, context->color);
}

}  // namespace

VerbRun declare_plan(CLI::App& command) {
  auto options = std::make_shared<PlanOptions>();
  PlanArgs& args = options->args;
  command.add_option("FRAMEWORK", args.spec)->required()->type_name("FRAMEWORK[==VERSION]");
  command.add_option("--os", args.os)
      ->check(CLI::IsMember({"windows", "linux", "wsl2"}))
      ->option_text("windows|linux|wsl2");
  auto* gpu = command.add_option("--gpu", args.gpu)->type_name("NAME");
  command.add_option("--cc", args.cc)->excludes(gpu)->type_name("X.Y");
  command.add_option("--driver", args.driver)->type_name("VERSION");
  command.add_option("--python", args.python)->type_name("X.Y");
  command.add_option("--cuda", args.cuda)->type_name("X.Y");
  auto* env = command.add_option("--env", args.env);
  env->type_name("PATH");
  command.add_flag("--here", args.here)->excludes(env);
  command.add_option("--snapshot", args.snapshot)->type_name("FILE");
  command.add_option("--write", args.write_dir)->type_name("DIR");
  command.add_flag("--force", args.force);
  add_format_options(command, options->format, args.json);
  add_common_options(command, options->common);
  return [options] { return run_plan_verb(*options); };
}

}  // namespace gpuvet::cli
