#include "explain/known_bugs.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "kb/known_bugs.hpp"
#include "python/metadata.hpp"

namespace gpuvet::explain {
namespace {

constexpr double kConfirmedByRelease = 0.95;
// A reading of a line other causes print too, when neither the log nor the machine says the
// release: after the line's other readings.
constexpr double kReadingWithoutRelease = 0.1;

// The release of a component the log shows: a version line (the driver's, PyTorch's) or a pip
// listing.
std::optional<LogFacts::Seen> release_in_log(const LogFacts& log, const std::string& component) {
  if (const auto it = log.versions.find(component); it != log.versions.end()) return it->second;
  if (const auto it = log.listed.find(python::normalize_name(component)); it != log.listed.end())
    return it->second;
  return std::nullopt;
}

std::optional<kb::Row> bug_of(const Cause& c, const kb::Kb& kb) {
  for (const auto& signature : c.signatures) {
    if (auto row = kb::known_bug_of_signature(kb, signature)) return row;
  }
  return std::nullopt;
}

// The bug is what its lines mean: the causes only those lines name are readings of them.
void make_readings_of(std::vector<Cause>& causes, const Cause& bug) {
  std::set<size_t> lines;
  for (const auto& e : bug.evidence)
    lines.insert(e.line);
  for (auto& c : causes) {
    if (&c == &bug || c.alternative || c.similar || c.evidence.empty()) continue;
    const bool only_its_lines =
        std::all_of(c.evidence.begin(), c.evidence.end(),
                    [&](const Evidence& e) { return lines.contains(e.line); });
    if (only_its_lines) c.alternative = true;
  }
}

void confirm(std::vector<Cause>& causes, Cause& c, const std::string& release) {
  c.captures.insert_or_assign("version", release);
  c.alternative = false;
  c.named_less_specifically = false;
  c.symptom_only = false;
  c.confidence = std::max(c.confidence, kConfirmedByRelease);
  make_readings_of(causes, c);
}

}  // namespace

bool is_known_bug_cause(std::string_view id) {
  return id == "framework.known_bug" || id == "driver.known_bug" ||
         id == "container.toolkit_known_bug";
}

const Finding* known_bug_on_machine(const Cause& c, const std::optional<MachineFindings>& machine) {
  if (!machine || !machine->ranks || !is_known_bug_cause(c.id)) return nullptr;
  for (const auto& f : machine->findings) {
    const auto signature = f.details.find("signature");
    if (f.id == c.id && signature != f.details.end() &&
        std::find(c.signatures.begin(), c.signatures.end(), signature->second) !=
            c.signatures.end()) {
      return &f;
    }
  }
  return nullptr;
}

void apply_known_release_bugs(std::vector<Cause>& causes, const kb::Kb& kb, const LogFacts& log,
                              const kb::Messages& m,
                              const std::optional<MachineFindings>& machine) {
  std::vector<std::string> not_this_release;
  for (auto& c : causes) {
    if (!is_known_bug_cause(c.id) || c.similar) continue;
    const auto bug = bug_of(c, kb);
    if (!bug) continue;
    c.captures.insert_or_assign("package", bug->get("name"));
    c.captures.insert_or_assign("affected", kb::affected_releases(*bug, m));
    c.captures.insert_or_assign("fixed_in", bug->get("fixed_in"));
    c.captures.insert_or_assign("last_good", bug->get("last_good"));
    c.captures.erase("version");
    c.captures.erase("release");
    const auto seen = release_in_log(log, bug->get("component"));
    const auto said = seen ? kb::bug_release(*bug, seen->version) : kb::BugRelease::unknown;
    if (said == kb::BugRelease::unaffected) {
      not_this_release.push_back(c.id);
    } else if (said == kb::BugRelease::affected) {
      confirm(causes, c, seen->version);
      c.evidence.push_back(seen->line);
    } else if (seen) {
      // A release after the last one known to have it, and no fix known: undecided.
      c.captures.insert_or_assign("release", seen->version);
      if (bug->get("needs_version") == "yes") {
        c.alternative = true;
        c.confidence = std::min(c.confidence, kReadingWithoutRelease);
      }
    } else if (const Finding* found = known_bug_on_machine(c, machine)) {
      // The checks find an affected release installed on the log's own machine.
      confirm(causes, c, found->details.at("version"));
      c.confirmed_by_facts = true;
    } else if (bug->get("needs_version") == "yes") {
      c.alternative = true;
      c.confidence = std::min(c.confidence, kReadingWithoutRelease);
    }
  }
  std::erase_if(causes, [&](const Cause& c) {
    return std::find(not_this_release.begin(), not_this_release.end(), c.id) !=
           not_this_release.end();
  });
}

}  // namespace gpuvet::explain
