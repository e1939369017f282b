#pragma once
// The pipeline every verb and test runs: System -> probes -> Facts -> checks -> Findings, as one
// Report value for the renderers.
#include <string>
#include <vector>

#include "checks/checks.hpp"
#include "checks/finding.hpp"
#include "core/result.hpp"
#include "facts/facts.hpp"
#include "kb/kb.hpp"
#include "kb/messages.hpp"
#include "system/system.hpp"

namespace gpuvet::pipeline {

struct Report {
  std::string tool;        // "gpuvet 0.1.0"
  std::string kb_version;  // of the knowledge base the checks used
  Facts facts;
  std::vector<Finding> findings;
  checks::Summary summary;
  long long elapsed_ms = 0;
};

// "gpuvet 0.1.0"
std::string tool_name();

Result<Report> diagnose(const sys::System& system, const kb::Kb& kb, const kb::Messages& messages);

// A finding added after the checks (gpuvet verify's): kept once, and the summary redone.
void add_finding(Report& report, Finding finding);

}  // namespace gpuvet::pipeline
