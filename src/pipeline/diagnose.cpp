#include "pipeline/diagnose.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "probes/probes.hpp"

namespace gpuvet::pipeline {

std::string tool_name() {
  return fmt::format("gpuvet {}", GPUVET_VERSION);
}

Result<Report> diagnose(const sys::System& system, const kb::Kb& kb, const kb::Messages& messages) {
  Report report;
  report.tool = tool_name();
  report.kb_version = kb.version();
  report.facts = probes::collect_facts(system, kb);
  const checks::CheckContext context(report.facts, kb, messages);
  auto findings = checks::run_checks(context);
  if (!findings) return findings.error();
  report.findings = std::move(*findings);
  report.summary = checks::summarize(report.facts, report.findings);
  return report;
}

void add_finding(Report& report, Finding finding) {
  const bool known = std::any_of(report.findings.begin(), report.findings.end(),
                                 [&](const Finding& f) { return f.id == finding.id; });
  if (!known) report.findings.push_back(std::move(finding));
  report.summary = checks::summarize(report.facts, report.findings);
}

}  // namespace gpuvet::pipeline
