#include "cli/explain_verb.hpp"

#include <cstdio>

#include "cli/app.hpp"
#include "explain/explain.hpp"
#include "explain/log_reader.hpp"
#include "report/render_explain.hpp"

namespace gpuvet::cli {

int run_explain(const ExplainArgs& args, const kb::Kb& kb, const kb::Messages& messages,
                const sys::System* system, bool color) {
  auto signatures = explain::Signatures::load(kb);
  if (!signatures) return fail(signatures.error().message);
  explain::Collector collector(*signatures);
  const explain::LineSink sink = [&](size_t n, std::string_view line) {
    return collector.on_line(n, line);
  };
  const auto filter = [&](std::string_view lines) { return signatures->first_candidate(lines); };
  const auto read = args.has_text ? explain::read_log_text(args.text, sink, filter)
                                  : explain::read_log_file(args.input, sink, filter);
  if (!read) {
    return fail(args.has_text ? "--text: " + read.error().message : read.error().message);
  }
  std::optional<explain::MachineFindings> machine;
  if (system) {
    auto report = diagnose(*system, kb, messages);
    if (!report) return fail(report.error().message);
    machine = explain::MachineFindings{report->findings};
  }
  const auto causes = explain::reason(collector.causes(), kb, messages, machine);
  const std::string out = args.json ? report::render_explain_json(causes)
                                    : report::render_explain_text(causes, messages, color);
  print(out);
  return causes.empty() ? kExitFound : kExitOk;
}

}  // namespace gpuvet::cli
