#include "kb/known_bugs.hpp"

#include <cctype>

#include "core/version.hpp"

namespace gpuvet::kb {

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

BugRelease bug_release(const Row& bug, std::string_view release) {
  const std::string dotted = dotted_release(release);
  if (dotted.empty()) return BugRelease::unknown;
  const std::string& first = bug.get("first_affected");
  const std::string& last = bug.get("last_affected");
  const std::string& fixed = bug.get("fixed_in");
  if (version::compare(dotted, first) < 0) return BugRelease::unaffected;
  if (!fixed.empty())
    return version::compare(dotted, fixed) < 0 ? BugRelease::affected : BugRelease::unaffected;
  const std::string& known_to = last.empty() ? first : last;
  return version::compare(dotted, known_to) <= 0 ? BugRelease::affected : BugRelease::unknown;
}

std::string affected_releases(const Row& bug, const Messages& m) {
  const std::string& first = bug.get("first_affected");
  const std::string& last = bug.get("last_affected");
  const std::string& fixed = bug.get("fixed_in");
  if (last == first) return m.text("explain.bug.range.one", {{"first", first}});
  if (!last.empty()) return m.text("explain.bug.range.span", {{"first", first}, {"last", last}});
  if (!fixed.empty())
    return m.text("explain.bug.range.before", {{"first", first}, {"fixed", fixed}});
  return m.text("explain.bug.range.from", {{"first", first}});
}

std::optional<Row> known_bug_of_signature(const Kb& kb, std::string_view signature) {
  auto rows = rows_where(kb, "known_release_bugs", "signature", signature);
  if (!rows || rows->empty()) return std::nullopt;
  return rows->front();
}

Result<std::string> known_bug_cause(const Kb& kb, const Row& bug) {
  auto rows = rows_where(kb, "explain_signatures", "id", bug.get("signature"));
  if (!rows) return rows.error();
  if (rows->empty())
    return Error{"known_release_bugs.csv names no signature " + bug.get("signature")};
  return rows->front().get("cause");
}

Result<std::vector<Row>> known_release_bugs(const Kb& kb) {
  return rows_if(kb, "known_release_bugs", [](const Row&) { return true; });
}

}  // namespace gpuvet::kb
