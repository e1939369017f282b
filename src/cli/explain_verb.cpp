#include "cli/explain_verb.hpp"

#include <cstdio>

#include <CLI/CLI.hpp>

#include "cli/common.hpp"
#include "cli/verb.hpp"
#include "explain/explain.hpp"
#include "explain/log_reader.hpp"
#include "explain/same_machine.hpp"
#include "explain/signatures.hpp"
#include "pipeline/diagnose.hpp"
#include "report/render_explain.hpp"

namespace gpuvet::cli {

namespace {

// format: text, json or md (--format; --json is json).
int explain_as(const ExplainArgs& args, const std::string& format, const kb::Kb& kb,
               const kb::Messages& messages, const sys::System* system, bool color) {
  auto signatures = explain::Signatures::load(kb);
  if (!signatures) return fail(signatures.error());
  explain::Collector collector(*signatures, &explain::SimilarCases::embedded());
  const explain::LineSink sink = [&](size_t n, std::string_view line) {
    return collector.on_line(n, line);
  };
  const auto filter = [&](std::string_view lines) { return collector.first_candidate(lines); };
  const auto read = args.has_text ? explain::read_log_text(args.text, sink, filter)
                                  : explain::read_log_file(args.input, sink, filter);
  if (!read) {
    return fail(args.has_text ? in_file(read.error(), "--text") : read.error());
  }
  std::optional<explain::MachineFindings> machine;
  explain::FactsUse facts;
  facts.log_platform = explain::log_platform(collector.log_facts());
  auto found = collector.causes();
  if (system) {
    auto report = pipeline::diagnose(*system, kb, messages);
    if (!report) return fail(report.error());
    // Only a log that shows it comes from this machine is ranked by its facts.
    auto decided =
        explain::facts_for_log(collector.log_facts(), report->facts, std::move(report->findings),
                               kb, messages, system, args.same_machine);
    facts = std::move(decided.use);
    machine = std::move(decided.machine);
    if (machine && machine->ranks) {
      explain::look_up_libraries(*machine, found, report->facts,
                                 args.snapshot.empty() ? system : nullptr);
    }
  }
  const auto causes =
      explain::reason(std::move(found), kb, messages, machine, collector.log_facts());
  const std::string out = format == "json" ? report::render_explain_json(causes, facts)
                          : format == "md"
                              ? report::render_explain_md(causes, messages, facts)
                              : report::render_explain_text(causes, messages, color, facts);
  print(out);
  return causes.empty() ? kExitFound : kExitOk;
}

}  // namespace

int run_explain(const ExplainArgs& args, const kb::Kb& kb, const kb::Messages& messages,
                const sys::System* system, bool color) {
  return explain_as(args, args.json ? "json" : "text", kb, messages, system, color);
}

namespace {

struct ExplainOptions {
  ExplainArgs args;
  CommonOptions common;
  std::string format = "text";
  bool export_patterns = false;
};

// Hidden: the patterns as grep -E reads them, the explain benchmark's baseline.
int export_patterns(const kb::Kb& kb) {
  auto signatures = explain::Signatures::load(kb);
  if (!signatures) return fail(signatures.error());
  for (const auto& s : signatures->all())
    print(explain::to_grep_pattern(s.pattern) + "\n");
  return kExitOk;
}

int run_explain_verb(ExplainOptions& options, const CLI::App& command) {
  if (options.export_patterns) {
    auto kb = load_kb(options.common.kb_dir);
    if (!kb) return fail(kb.error());
    return export_patterns(*kb);
  }
  auto context = open_context(options.common);
  if (!context) return fail(context.error());
  ExplainArgs& args = options.args;
  args.has_text = command.count("--text") > 0;
  if (args.has_text == !args.input.empty()) {
    return fail(context->messages.text("explain.error.input"));
  }
  std::unique_ptr<sys::System> system;
  if (!args.snapshot.empty() || !args.no_facts) {
    auto opened = open_system(args.snapshot);
    if (!opened) return fail(opened.error());
    system = std::move(*opened);
  }
  return explain_as(args, args.json ? "json" : options.format, context->kb, context->messages,
                    system.get(), context->color);
}

}  // namespace

VerbRun declare_explain(CLI::App& command) {
  auto options = std::make_shared<ExplainOptions>();
  ExplainArgs& args = options->args;
  command.add_option("FILE", args.input)->type_name("FILE|-");
  command.add_option("--text", args.text)->type_name("MESSAGE");
  command.add_option("--snapshot", args.snapshot)->type_name("FILE");
  auto* no_facts = command.add_flag("--no-facts", args.no_facts);
  command.add_flag("--same-machine", args.same_machine)->excludes(no_facts);
  add_format_options(command, options->format, args.json);
  add_common_options(command, options->common);
  command.add_flag("--export-patterns", options->export_patterns)->group("");
  return [options, &command] { return run_explain_verb(*options, command); };
}

}  // namespace gpuvet::cli
