// `gpuvet which`: the file the loader would load for each library name, and what it shadows.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>

#include "cli/common.hpp"
#include "cli/verb.hpp"
#include "core/paths.hpp"
#include "report/render_which.hpp"
#include "resolve/which.hpp"

namespace gpuvet::cli {

namespace {

struct WhichArgs {
  CommonOptions common;
  std::vector<std::string> names;
  std::string from;
  std::vector<std::string> dll_dirs;
  std::string snapshot;
  bool json = false;
};

// --from relative to the current directory, as the process that loads it would have opened it;
// links are kept, as glibc keeps them in $ORIGIN.
std::string absolute_from(const std::string& from) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(paths::to_fs(from), ec);
  return ec ? from : paths::from_fs(absolute);
}

int run_which(const WhichArgs& args) {
  auto context = open_context(args.common);
  if (!context) return fail(context.error());
  auto system = open_system(args.snapshot, NativeChildren::per_question);
  if (!system) return fail(system.error());
  resolve::WhichRequest request;
  request.names = args.names;
  request.dll_directories = args.dll_dirs;
  resolve::WhichOptions options;
  if (!args.snapshot.empty()) {
    options.elf_headers = resolve::ElfHeaders::from_snapshot;
    if (!args.from.empty()) request.from = args.from;
  } else if (!args.from.empty()) {
    request.from = absolute_from(args.from);
  }
  auto report = resolve::which(**system, request, options);
  if (!report) {
    return fail(context->messages.text(
        "which.error.from", {{"path", args.from}, {"error", error_text(report.error())}}));
  }
  print(args.json ? report::render_which_json(*report)
                  : report::render_which_text(*report, context->messages, context->color));
  return report->all_resolved() ? kExitOk : kExitFound;
}

}  // namespace

VerbRun declare_which(CLI::App& command) {
  auto args = std::make_shared<WhichArgs>();
  command.add_option("NAME", args->names)->required()->type_name("");  // its name says it
  command.add_option("--from", args->from)->type_name("FILE");
  command.add_option("--dll-dir", args->dll_dirs)->type_name("DIR");
  command.add_option("--snapshot", args->snapshot)->type_name("FILE");
  command.add_flag("--json", args->json);
  add_common_options(command, args->common);
  return [args] { return run_which(*args); };
}

}  // namespace gpuvet::cli
