// `gpuvet check` (the default verb) and `gpuvet snapshot`: this machine, or a snapshot of one,
// through the pipeline.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>

#include "cli/bench_verb.hpp"
#include "cli/common.hpp"
#include "cli/verb.hpp"
#include "core/windows_paths.hpp"
#include "pipeline/diagnose.hpp"
#include "probes/probes.hpp"
#include "probes/snapshot_privacy.hpp"
#include "report/report.hpp"
#include "system/recording_system.hpp"
#include "system/snapshot.hpp"

namespace gpuvet::cli {

namespace {

struct CheckOptions {
  CommonOptions common;
  std::string snapshot;
  std::string format = "text";
  bool json = false;
  bool verify = false;
  bool strict = false;  // warnings fail too, for CI gates
  bool quiet = false;   // one line, for scripts and fleets
};

std::string render(const report::Report& report, const std::string& format,
                   const Context& context) {
  if (format == "json") return report::render_json(report);
  if (format == "md") return report::render_md(report, context.messages);
  return report::render_text(report, context.messages, context.color);
}

// --quiet: whether the GPU is ready, and else the first thing to fix.
// With --strict a warning is the thing to fix too.
std::string one_line_verdict(const report::Report& report, bool strict, const kb::Messages& m) {
  const auto to_fix = report::findings_to_fix(report.findings);
  const bool ready = report.summary.gpu_ready && report.summary.errors == 0;
  const bool warned = strict && report.summary.warnings > 0;
  std::string line;
  if (to_fix.empty() || (ready && !warned)) {
    line = m.text(ready ? "check.quiet.ready" : "check.quiet.not_ready");
  } else {
    line = m.text(ready ? "check.quiet.strict_fix_first" : "check.quiet.fix_first",
                  {{"title", to_fix.front()->title}, {"id", to_fix.front()->id}});
  }
  // A Windows machine's paths as Windows writes them, as in the full report.
  if (report.facts.os.family == "windows") line = windows_paths::in_text(line);
  return line + "\n";
}

int run_check(const CheckOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  auto context = open_context(options.common);
  if (!context) return fail(context.error());
  auto system = open_system(options.snapshot);
  if (!system) return fail(system.error());
  auto report = pipeline::diagnose(**system, context->kb, context->messages);
  if (!report) return fail(report.error());
  // --redact-user hides the machine's name with the user's, as snapshots do.
  if (!redacted_users().empty()) report->facts.os.hostname.reset();
  if (options.verify && options.snapshot.empty()) {
    if (auto finding = verify_finding(report->facts, context->kb, context->messages)) {
      pipeline::add_finding(*report, std::move(*finding));
    }
  }
  report->elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - started)
                           .count();
  print(options.quiet ? one_line_verdict(*report, options.strict, context->messages)
                      : render(*report, options.json ? "json" : options.format, *context));
  const bool failed =
      report->summary.errors > 0 || (options.strict && report->summary.warnings > 0);
  return failed ? kExitFound : kExitOk;
}

int run_snapshot(const std::string& output) {
  const auto live = sys::make_live_system(live_options());
  const sys::RecordingSystem recorder(*live);
  probes::collect_facts(recorder);
  sys::Snapshot recorded = recorder.recorded();
  recorded.taken_at = utc_now_iso8601();
  // The recorded environment names this machine's user too (HOME of a sudo'ed run, say).
  redact_users_of(recorded.env);
  const sys::Snapshot snapshot = probes::private_snapshot(recorded, {redacted_users()});
  if (output.empty() || output == "-") {
    print(sys::serialize_snapshot(snapshot));
    return kExitOk;
  }
  if (auto saved = sys::save_snapshot_file(snapshot, output); !saved) {
    return fail(
        kb::catalog_error("snapshot.error.cannot_write", {{"detail", error_text(saved.error())}}));
  }
  return kExitOk;
}

}  // namespace

VerbRun declare_check(CLI::App& command) {
  auto options = std::make_shared<CheckOptions>();
  command.add_option("--snapshot", options->snapshot)->type_name("FILE");
  add_format_options(command, options->format, options->json);
  add_common_options(command, options->common);
  command.add_flag("--verify", options->verify);
  command.add_flag("--strict", options->strict);
  command.add_flag("--quiet", options->quiet);
  return [options] { return run_check(*options); };
}

VerbRun declare_snapshot(CLI::App& command) {
  auto output = std::make_shared<std::string>();
  auto language = std::make_shared<CommonOptions>();
  command.add_option("-o,--output", *output)->type_name("FILE");
  add_language_options(command, *language);
  return [output, language] { return run_snapshot(*output); };
}

}  // namespace gpuvet::cli
