#pragma once
// `gpuvet explain`: from an error message or a whole log to the causes, ranked, interpreted with
// the knowledge base, and confirmed or ruled out by this machine's facts.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/finding.hpp"
#include "core/result.hpp"
#include "explain/signatures.hpp"
#include "kb/kb.hpp"
#include "kb/messages.hpp"

namespace gpuvet::explain {

inline constexpr std::string_view kExplainSchema = "gpuvet.explain/1";
// Evidence lines kept per cause: the first ones the log shows.
inline constexpr size_t kMaxEvidence = 5;
// Lines kept that may name the device.
inline constexpr size_t kMaxDeviceLines = 4;
// An alternative's confidence against its signature's weight, compounded down its `also` list.
inline constexpr double kAlternativeShare = 0.6;

struct Evidence {
  size_t line = 0;
  std::string text;
};

struct Cause {
  std::string id;  // a taxonomy id
  double confidence = 0;
  bool symptom_only = true;  // every signature that matched is a symptom of something else
  // No line names it: threads with the same message resolved to it (a signature's `also`).
  bool alternative = false;
  size_t first_line = 0;
  std::vector<Evidence> evidence;
  std::map<std::string, std::string> captures;  // from the first hits that had them
  std::vector<std::string> signatures;
  // The capability of the device the log names ("… name: NVIDIA GeForce RTX 3060 … compute
  // capability: 8.6", "… with CUDA capability sm_120 …"), resolved once in reason().
  std::vector<std::string> device_lines;
  std::string why;
  std::vector<std::string> fix;
  std::optional<bool> confirmed_by_facts;
};

// Collects the hits of one log, line by line, in bounded memory.
class Collector {
 public:
  explicit Collector(const Signatures& signatures) : signatures_(signatures) {}
  bool on_line(size_t line_number, std::string_view line);
  // The fast path's filter: where in many lines a signature, or a line naming the device, could
  // first be. Lines before it are never given to on_line.
  size_t first_candidate(std::string_view text) const;
  std::vector<Cause> causes() const;

 private:
  const Signatures& signatures_;
  void record(Cause& cause, const Signature& sig, size_t line_number, std::string_view line,
              const std::map<std::string, std::string>& captures) const;
  std::map<std::string, Cause> by_cause_;
  std::map<std::string, Cause> alternatives_;
  std::vector<std::string> device_lines_;
};

// What the checks found on the machine (live or a snapshot); absent with --no-facts.
struct MachineFindings {
  std::vector<Finding> findings;
};

// Interprets captures with the knowledge base (cudart64_101.dll is CUDA 10.1), turns a runtime
// missing beside another CUDA on the path into a version mismatch, confirms or rules out each cause
// with the facts, writes why and fix, and ranks: root causes in fault-tree order (lower layers
// first), then symptoms, then the alternatives no line names; contradicted causes last.
std::vector<Cause> reason(std::vector<Cause> causes, const kb::Kb& kb, const kb::Messages& messages,
                          const std::optional<MachineFindings>& machine);

}  // namespace gpuvet::explain
