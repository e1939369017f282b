#include "explain/known_bugs.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string>

#include "core/version.hpp"
#include "kb/queries.hpp"
#include "python/metadata.hpp"

namespace gpuvet::explain {
namespace {

constexpr double kConfirmedByRelease = 0.95;
// A reading of a line other causes print too, when the log does not say the release.
constexpr double kReadingWithoutRelease = 0.1;

// The release as a table writes it: "v1.17.0-1" and "1.5.0~rc.1" are 1.17.0 and 1.5.0,
// "2.5.1+cu121" is 2.5.1. Empty when it does not start with a number.
std::string dotted_release(std::string_view written) {
  if (!written.empty() && (written.front() == 'v' || written.front() == 'V'))
    written.remove_prefix(1);
  size_t end = 0;
  while (end < written.size() &&
         (std::isdigit(static_cast<unsigned char>(written[end])) || written[end] == '.'))
    ++end;
  std::string dotted(written.substr(0, end));
  while (!dotted.empty() && dotted.back() == '.')
    dotted.pop_back();
  return version::is_dotted(dotted) ? dotted : std::string();
}

// The release of a component the log shows: a version line (the driver's, PyTorch's) or a pip
// listing.
std::optional<LogFacts::Seen> release_in_log(const LogFacts& log, const std::string& component) {
  if (const auto it = log.versions.find(component); it != log.versions.end()) return it->second;
  if (const auto it = log.listed.find(python::normalize_name(component)); it != log.listed.end())
    return it->second;
  return std::nullopt;
}

bool affects(const kb::Row& bug, const std::string& release) {
  const std::string& first = bug.get("first_affected");
  const std::string& last = bug.get("last_affected");
  const std::string& fixed = bug.get("fixed_in");
  return version::compare(release, first) >= 0 &&
         (last.empty() || version::compare(release, last) <= 0) &&
         (fixed.empty() || version::compare(release, fixed) < 0);
}

std::string affected_releases(const kb::Row& bug, const kb::Messages& m) {
  const std::string& first = bug.get("first_affected");
  const std::string& last = bug.get("last_affected");
  const std::string& fixed = bug.get("fixed_in");
  if (last == first) return m.text("explain.bug.range.one", {{"first", first}});
  if (!last.empty()) return m.text("explain.bug.range.span", {{"first", first}, {"last", last}});
  if (!fixed.empty())
    return m.text("explain.bug.range.before", {{"first", first}, {"fixed", fixed}});
  return m.text("explain.bug.range.from", {{"first", first}});
}

std::optional<kb::Row> bug_of(const Cause& c, const kb::Kb& kb) {
  for (const auto& signature : c.signatures) {
    auto rows = kb::rows_where(kb, "known_release_bugs", "signature", signature);
    if (rows && !rows->empty()) return rows->front();
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

}  // namespace

bool is_known_bug_cause(std::string_view id) {
  return id == "framework.known_bug" || id == "driver.known_bug" ||
         id == "container.toolkit_known_bug";
}

void apply_known_release_bugs(std::vector<Cause>& causes, const kb::Kb& kb, const LogFacts& log,
                              const kb::Messages& m) {
  std::vector<std::string> not_this_release;
  for (auto& c : causes) {
    if (!is_known_bug_cause(c.id) || c.similar) continue;
    const auto bug = bug_of(c, kb);
    if (!bug) continue;
    c.captures.insert_or_assign("package", bug->get("name"));
    c.captures.insert_or_assign("affected", affected_releases(*bug, m));
    c.captures.insert_or_assign("fixed_in", bug->get("fixed_in"));
    c.captures.insert_or_assign("last_good", bug->get("last_good"));
    const auto seen = release_in_log(log, bug->get("component"));
    const std::string release = seen ? dotted_release(seen->version) : std::string();
    if (release.empty()) {
      c.captures.erase("version");
      if (bug->get("needs_version") == "yes") {
        c.alternative = true;
        c.confidence = std::min(c.confidence, kReadingWithoutRelease);
      }
      continue;
    }
    if (!affects(*bug, release)) {
      not_this_release.push_back(c.id);
      continue;
    }
    c.captures.insert_or_assign("version", seen->version);
    c.alternative = false;
    c.named_less_specifically = false;
    c.symptom_only = false;
    c.confidence = std::max(c.confidence, kConfirmedByRelease);
    make_readings_of(causes, c);
    c.evidence.push_back(seen->line);
  }
  std::erase_if(causes, [&](const Cause& c) {
    return std::find(not_this_release.begin(), not_this_release.end(), c.id) !=
           not_this_release.end();
  });
}

}  // namespace gpuvet::explain
