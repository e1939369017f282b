#include <nlohmann/json.hpp>

#include "report/report.hpp"

namespace gpuvet::report {

std::string render_json(const Report& report) {
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  for (const auto& f : report.findings)
    findings.push_back(finding_to_json(f));
  const nlohmann::ordered_json document = {{"schema", kCheckSchema},
                                           {"tool", report.tool},
                                           {"kb_version", report.kb_version},
                                           {"facts", facts_to_json(report.facts)},
                                           {"findings", findings},
                                           {"summary",
                                            {{"errors", report.summary.errors},
                                             {"warnings", report.summary.warnings},
                                             {"gpu_ready", report.summary.gpu_ready}}}};
  return document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace gpuvet::report
