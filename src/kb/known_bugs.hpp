#pragma once
// Releases with a bug their maintainers confirmed (data/known_release_bugs.csv): which releases,
// which fixed it, which was the last without it. explain reads the release from a log, the
// checks from the machine's installed packages.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "kb/kb.hpp"
#include "kb/messages.hpp"
#include "kb/queries.hpp"

namespace gpuvet::kb {

// The release as the table writes it: "v1.17.0-1" and "1.5.0~rc.1" are 1.17.0 and 1.5.0,
// "2.5.1+cu121" is 2.5.1. Empty when it does not start with a number.
std::string dotted_release(std::string_view written);

enum class BugRelease { affected, unaffected, unknown };

// What the bug's row says of a release (as a log or a package writes it): before its first
// affected release or from the one that fixed it, unaffected; from the first up to the fix, or to
// the last affected one where no fix is known, affected; after the last one known affected (or
// after the first, where the row knows neither), or a release that is no number, unknown.
BugRelease bug_release(const Row& bug, std::string_view release);

// The bug's releases in words: "release 1.18.0", "releases from 2.5.0, before 2.6.0".
std::string affected_releases(const Row& bug, const Messages& m);

// The row of the bug a signature's line is printed by.
std::optional<Row> known_bug_of_signature(const Kb& kb, std::string_view signature);

// The cause the bug's signature names (framework.known_bug ...), from explain_signatures.csv.
Result<std::string> known_bug_cause(const Kb& kb, const Row& bug);

// Every row.
Result<std::vector<Row>> known_release_bugs(const Kb& kb);

}  // namespace gpuvet::kb
