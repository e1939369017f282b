#include "cli/bench_verb.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "bench/bench_child.hpp"
#include "bench/bench_parent.hpp"
#include "bench/libraries.hpp"
#include "cli/common.hpp"
#include "cli/verb.hpp"
#include "core/paths.hpp"
#include "pipeline/diagnose.hpp"
#include "platform/terminal.hpp"
#include "probes/probes.hpp"
#include "report/render_bench.hpp"
#include "report/render_bench_html.hpp"
#include "report/report.hpp"

namespace gpuvet::cli {

namespace {

// cuBLAS and cuDNN where this machine has them beyond the loader's search: the toolkits' library
// folders and the NVIDIA wheels of every Python environment.
void add_candidates(const Facts& facts, bench::RunOptions& options) {
  const auto add = [](std::vector<std::string>& out, const std::string& dir,
                      const std::vector<std::string>& names) {
    for (const auto& name : names)
      out.push_back(dir + "/" + name);
  };
  for (const auto& toolkit : facts.cuda_toolkits) {
    for (const char* sub : {"/lib64", "/lib", "/bin"}) {
      add(options.cublas, toolkit.root + sub, bench::cublas_names());
      add(options.cudnn, toolkit.root + sub, bench::cudnn_names());
    }
  }
  for (const auto& cudnn : facts.cudnn)
    add(options.cudnn, cudnn.location, bench::cudnn_names());
  for (const auto& env : facts.python_envs) {
    for (const auto& wheel : env.nvidia_wheels) {
      if (!wheel.lib_dir) continue;
      if (wheel.component == "cublas") add(options.cublas, *wheel.lib_dir, bench::cublas_names());
      if (wheel.component == "cudnn") add(options.cudnn, *wheel.lib_dir, bench::cudnn_names());
    }
  }
}

std::chrono::milliseconds timeout_for(bench::Mode mode) {
  if (const char* ms = std::getenv("GPUVET_BENCH_TIMEOUT_MS")) {
    if (const long long value = std::atoll(ms); value > 0) return std::chrono::milliseconds(value);
  }
  return std::chrono::milliseconds(mode == bench::Mode::verify  ? 60000
                                   : mode == bench::Mode::quick ? 300000
                                                                : 600000);
}

Result<bench::Report> measure(bench::Mode mode, const kb::Kb& kb, const kb::Messages& messages,
                              const Facts* facts, bool progress) {
  bench::RunOptions options;
  options.mode = mode;
  options.progress = progress;
  options.timeout = timeout_for(mode);
  const auto self = platform::current_executable();
  if (!self) return make_error(messages.text("bench.error.no_self"));
  options.helper = *self;
  // Only the probes: where cuBLAS and cuDNN are; the checks have nothing to add here.
  std::optional<Facts> probed;
  if (!facts) {
    const auto system = sys::make_live_system();
    probed = probes::collect_facts(*system, kb);
    facts = &*probed;
  }
  add_candidates(*facts, options);
  bench::Report report = bench::run(options);
  bench::attach_peaks(report, kb);
  bench::put_in_words(report, messages);
  return report;
}

// Nothing ran: the cause is check's first cause on this machine, with its fix, so that verify,
// bench and check say the same thing (a machine without a GPU is gpu.none, not driver.missing).
void explain_failure(bench::Report& report, const kb::Kb& kb, const kb::Messages& messages) {
  const bool ran_any = std::any_of(report.results.begin(), report.results.end(),
                                   [](const bench::Result& r) { return r.ran; });
  // Only where the run found nothing to run on: a driver that crashed or hung says more itself.
  const bool nothing_to_run_on = report.failure_id == "driver.missing" ||
                                 report.failure_id == "gpu.none" ||
                                 report.failure_id == "gpu.not_visible";
  if (!report.failure || ran_any || !nothing_to_run_on) return;
  const auto system = sys::make_live_system(live_options());
  auto diagnosis = pipeline::diagnose(*system, kb, messages);
  if (!diagnosis) return;
  for (const Finding* f : report::findings_to_fix(diagnosis->findings)) {
    if (f->severity != Severity::error) continue;
    if (f->layer != Layer::hardware && f->layer != Layer::driver) return;
    if (f->id != report.failure_id) report.failure_detail = report.failure;
    report.failure_id = f->id;
    report.failure = f->title;
    report.failure_fix = f->fix;
    return;
  }
}

Layer layer_of(const std::string& id) {
  if (id.starts_with("driver.")) return Layer::driver;
  if (id.starts_with("gpu.")) return Layer::hardware;
  return Layer::runtime;
}

}  // namespace

int run_bench(const BenchArgs& args, const kb::Kb& kb, const kb::Messages& messages, bool color) {
  const bench::Mode mode = args.verify  ? bench::Mode::verify
                           : args.quick ? bench::Mode::quick
                                        : bench::Mode::full;
  auto report = measure(mode, kb, messages, nullptr, color && !args.json);
  if (!report) return fail(report.error());
  explain_failure(*report, kb, messages);
  const bool passed = args.verify ? bench::verify_passed(*report) : !report->failure;
  if (!args.html.empty()) {
    std::ofstream out(paths::to_fs(args.html), std::ios::binary | std::ios::trunc);
    out << for_output(report::render_bench_html(
                          *report, args.verify ? "gpuvet verify" : "gpuvet bench", messages),
                      true);
    out.close();
    if (!out) return fail(kb::catalog_error("error.cannot_write", {{"file", args.html}}));
  }
  std::string out = args.json
                        ? report::render_bench_json(*report)
                        : report::render_bench_text(*report, messages, args.verify, passed, color);
  if (!args.html.empty() && !args.json) {
    out += messages.text("bench.text.html_written", {{"file", args.html}}) + "\n";
  }
  print(out);
  return passed ? kExitOk : kExitFound;
}

std::optional<Finding> verify_finding(const Facts& facts, const kb::Kb& kb,
                                      const kb::Messages& messages) {
  auto report = measure(bench::Mode::verify, kb, messages, &facts, false);
  if (!report) {
    Finding f;
    f.id = "other";
    f.severity = Severity::warning;
    f.layer = Layer::runtime;
    f.title = messages.text("verify.finding.not_run");
    f.evidence.push_back(report.error().message);
    return f;
  }
  if (bench::verify_passed(*report)) return std::nullopt;
  Finding f;
  f.id = report->failure_id.value_or("device.busy_or_init_failed");
  f.severity = Severity::error;
  f.layer = layer_of(f.id);
  f.title = messages.text("verify.finding.title");
  if (report->failure) f.evidence.push_back(*report->failure);
  for (const auto& r : report->results) {
    if (!r.ok && !report->failure) f.evidence.push_back(r.name + ": " + r.detail);
  }
  f.fix.push_back(messages.text("verify.finding.fix"));
  return f;
}

int run_bench_child_verb(const std::vector<std::string>& arguments) {
  bench::ChildOptions options;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const std::string& a = arguments[i];
    const bool has_value = i + 1 < arguments.size();
    if (a == "--mode" && has_value) {
      const std::string& m = arguments[++i];
      options.mode = m == "verify"  ? bench::Mode::verify
                     : m == "quick" ? bench::Mode::quick
                                    : bench::Mode::full;
    } else if (a == "--progress") {
      options.progress = true;
    } else if (a == "--cublas" && has_value) {
      options.cublas.push_back(arguments[++i]);
    } else if (a == "--cudnn" && has_value) {
      options.cudnn.push_back(arguments[++i]);
    }
  }
  bench::run_bench_child(options);
  return kExitOk;
}

namespace {

struct BenchOptions {
  BenchArgs args;
  CommonOptions common;
};

int run_bench_verb(const BenchOptions& options) {
  auto context = open_context(options.common);
  if (!context) return fail(context.error());
  return run_bench(options.args, context->kb, context->messages, context->color);
}

std::shared_ptr<BenchOptions> declare_measurement(CLI::App& command, bool verify) {
  auto options = std::make_shared<BenchOptions>();
  options->args.verify = verify;
  command.add_flag("--json", options->args.json);
  add_common_options(command, options->common);
  return options;
}

}  // namespace

VerbRun declare_verify(CLI::App& command) {
  auto options = declare_measurement(command, true);
  return [options] { return run_bench_verb(*options); };
}

VerbRun declare_bench(CLI::App& command) {
  auto options = declare_measurement(command, false);
  command.add_flag("--quick", options->args.quick);
  command.add_option("--html", options->args.html)->type_name("FILE");
  return [options] { return run_bench_verb(*options); };
}

}  // namespace gpuvet::cli
