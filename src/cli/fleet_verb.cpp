// `gpuvet fleet collect --slurm [-- SRUN_ARGS…] -o DIR` and `gpuvet fleet report DIR`: many
// machines' snapshots, collected with the site's scheduler, diagnosed and compared.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli/common.hpp"
#include "cli/verb.hpp"
#include "core/paths.hpp"
#include "fleet/collect.hpp"
#include "fleet/fleet.hpp"
#include "kb/messages.hpp"
#include "platform/terminal.hpp"
#include "report/render_fleet.hpp"

namespace gpuvet::cli {

namespace {

struct FleetOptions {
  std::string action;  // collect | report | node
  CommonOptions common;
  // report
  std::string dir;
  std::string format = "text";
  bool json = false;
  std::string html;
  unsigned threads = 0;
  // collect
  bool slurm = false;
  std::string out_dir;
  std::vector<std::string> srun_args;
  int timeout_s = 120;
  int deadline_s = 0;
  std::string stage = "auto";
  // node (hidden)
  bool remove_self = false;
};

int run_report(const FleetOptions& options) {
  auto context = open_context(options.common);
  if (!context) return fail(context.error());
  auto report = fleet::report_dir(options.dir, context->kb, context->messages, {options.threads});
  if (!report) return fail(report.error());
  const std::string format = options.json ? "json" : options.format;
  if (!options.html.empty()) {
    std::ofstream out(paths::to_fs(options.html), std::ios::binary | std::ios::trunc);
    out << for_output(report::render_fleet_html(*report, context->messages), true);
    if (!out) return fail(kb::catalog_error("error.cannot_write", {{"file", options.html}}));
  }
  if (format == "json") {
    print(report::render_fleet_json(*report));
  } else if (format == "md") {
    print(report::render_fleet_md(*report, context->messages));
  } else {
    std::string text = report::render_fleet_text(*report, context->messages, context->color);
    if (!options.html.empty())
      text +=
          "\n" + context->messages.text("bench.text.html_written", {{"file", options.html}}) + "\n";
    print(text);
  }
  const bool all_ready = report->error == 0 && report->unreadable == 0;
  return all_ready ? kExitOk : kExitFound;
}

std::string collect_text(const fleet::Collected& collected, const std::string& dir,
                         const kb::Messages& messages) {
  const auto& nodes = collected.record.nodes;
  const size_t ok =
      static_cast<size_t>(std::count_if(nodes.begin(), nodes.end(), [](const auto& n) {
        return n.status == fleet::CollectStatus::ok;
      }));
  std::string out;
  if (collected.staged) {
    out += messages.text("fleet.collect.staged");
  } else if (collected.shared_filesystem) {
    out += messages.text("fleet.collect.in_place", {{"fs", *collected.shared_filesystem}});
  } else {
    out += messages.text("fleet.collect.in_place_asked");
  }
  out += "\n";
  if (nodes.empty()) {
    out += messages.text("fleet.collect.nothing") + "\n";
    if (!collected.record.messages.empty()) out += collected.record.messages + "\n";
    return out;
  }
  out += messages.text(
             "fleet.collect.summary",
             {{"ok", std::to_string(ok)}, {"total", std::to_string(nodes.size())}, {"dir", dir}}) +
         "\n";
  for (const auto& node : nodes) {
    if (node.status == fleet::CollectStatus::ok) continue;
    out += "  ✖ " +
           messages.text("fleet.collect.node_failed",
                         {{"node", node.node},
                          {"status", std::string(fleet::to_string(node.status))},
                          {"reason", node.reason}}) +
           "\n";
  }
  if (ok < nodes.size() && !collected.record.messages.empty())
    out += messages.text("fleet.collect.srun_said") + "\n" + collected.record.messages + "\n";
  out += messages.text("fleet.collect.next", {{"dir", dir}}) + "\n";
  return out;
}

// CONTRACTS.md writes `fleet collect --slurm [-- SRUN_ARGS…] -o DIR`: -o after the srun
// arguments is gpuvet's. srun's own -o (a file for the tasks' output) would take the snapshots
// away from the collector, so no -o/--output there is ever srun's.
Result<bool> take_output_option(std::vector<std::string>& srun_args, std::string& out_dir) {
  for (size_t i = 0; i < srun_args.size(); ++i) {
    const std::string& arg = srun_args[i];
    std::optional<std::string> value;
    size_t taken = 1;
    if (arg == "-o" || arg == "--output") {
      if (i + 1 == srun_args.size())
        return kb::catalog_error("fleet.error.needs_directory", {{"option", arg}});
      value = srun_args[i + 1];
      taken = 2;
    } else if (arg.starts_with("--output=")) {
      value = arg.substr(9);
    } else if (arg.starts_with("-o") && arg.size() > 2 && arg[2] != '-') {
      value = arg.substr(2);
    }
    if (!value) continue;
    if (!out_dir.empty()) return kb::catalog_error("fleet.error.output_twice");
    out_dir = *value;
    srun_args.erase(srun_args.begin() + static_cast<std::ptrdiff_t>(i),
                    srun_args.begin() + static_cast<std::ptrdiff_t>(i + taken));
    --i;
  }
  if (out_dir.empty()) return kb::catalog_error("fleet.error.needs_output");
  return true;
}

int run_collect(FleetOptions options) {
  auto context = open_context(options.common);
  if (!context) return fail(context.error());
  if (!options.slurm) return fail(context->messages.text("fleet.collect.no_engine"));
  if (auto taken = take_output_option(options.srun_args, options.out_dir); !taken)
    return fail(taken.error());
  const auto self = platform::current_executable();
  if (!self) return fail(context->messages.text("bench.error.no_self"));
  fleet::CollectOptions collect;
  collect.out_dir = options.out_dir;
  collect.srun_args = options.srun_args;
  collect.node_timeout = std::chrono::seconds(options.timeout_s);
  collect.deadline = std::chrono::seconds(options.deadline_s);
  collect.stage = options.stage == "always"  ? fleet::Stage::always
                  : options.stage == "never" ? fleet::Stage::never
                                             : fleet::Stage::automatic;
  collect.self = *self;
  collect.collected_at = utc_now_iso8601();
  auto collected = fleet::collect_slurm(collect);
  if (!collected) return fail(collected.error());
  print(collect_text(*collected, options.out_dir, context->messages));
  const auto& nodes = collected->record.nodes;
  const bool all_ok = !nodes.empty() && std::all_of(nodes.begin(), nodes.end(), [](const auto& n) {
    return n.status == fleet::CollectStatus::ok;
  });
  return all_ok ? kExitOk : kExitFound;
}

std::string env_text(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

// Runs on each node, under the scheduler: its output is the collector's input, written as is
// (the snapshot inside is already redacted; base64 must not pass the output net's patterns).
int run_node(const FleetOptions& options) {
  const auto self = platform::current_executable();
  if (!self) return fail(kb::catalog_error("error.no_self"));
  std::string node = env_text("SLURMD_NODENAME");
  if (node.empty()) node = sys::make_live_system()->host().hostname.value_or("localhost");
  std::string nodelist = env_text("SLURM_JOB_NODELIST");
  if (nodelist.empty()) nodelist = env_text("SLURM_STEP_NODELIST");
  if (nodelist.empty()) nodelist = node;
  // A line per write: a wire line is shorter than PIPE_BUF, so where several nodes share one
  // pipe or file (srun without --label, a launcher that merges outputs) no line is ever cut by
  // another's. stdio alone would write at its buffer's boundaries, in the middle of lines.
  for (std::string line :
       fleet::node_answer(*self, std::chrono::seconds(options.timeout_s), node, nodelist)) {
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
  }
  // The copy srun --bcast staged for this run, and only such a copy: never an installed gpuvet.
  if (options.remove_self &&
      paths::from_fs(paths::to_fs(*self).filename()).starts_with("gpuvet-fleet-")) {
    std::error_code ignored;
    std::filesystem::remove(paths::to_fs(*self), ignored);
  }
  return kExitOk;
}

}  // namespace

VerbRun declare_fleet(CLI::App& command) {
  auto options = std::make_shared<FleetOptions>();
  command.require_subcommand(1);

  CLI::App* collect = command.add_subcommand("collect");
  collect->add_flag("--slurm", options->slurm);
  // Required, but it may also come after `--` (take_output_option).
  collect->add_option("-o,--output", options->out_dir)->type_name("DIR");
  collect->add_option("--timeout", options->timeout_s)
      ->check(CLI::Range(1, 86400))
      ->option_text("SECONDS");
  collect->add_option("--deadline", options->deadline_s)
      ->check(CLI::Range(1, 604800))
      ->option_text("SECONDS");
  collect->add_option("--stage", options->stage)
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->option_text("auto|always|never")
      ->type_name("WHEN");
  collect->add_option("SRUN_ARGS", options->srun_args)->type_name("ARG");
  add_common_options(*collect, options->common);
  collect->callback([options] { options->action = "collect"; });

  CLI::App* report = command.add_subcommand("report");
  report->add_option("DIR", options->dir)->required()->type_name("");  // its name says it
  add_format_options(*report, options->format, options->json);
  report->add_option("--html", options->html)->type_name("FILE");
  report->add_option("--threads", options->threads)->check(CLI::Range(1, 256))->option_text("N");
  add_common_options(*report, options->common);
  report->callback([options] { options->action = "report"; });

  // Hidden: the task each node runs under the scheduler.
  CLI::App* node = command.add_subcommand("node");
  node->group("");
  node->add_option("--timeout", options->timeout_s)->check(CLI::Range(1, 86400));
  node->add_flag("--remove-self", options->remove_self);
  node->callback([options] { options->action = "node"; });

  return [options] {
    if (options->action == "collect") return run_collect(*options);
    if (options->action == "node") return run_node(*options);
    return run_report(*options);
  };
}

}  // namespace gpuvet::cli
