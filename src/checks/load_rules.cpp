#include "checks/load_rules.hpp"

#include "core/text.hpp"
#include "core/version.hpp"
#include "kb/queries.hpp"

namespace gpuvet::checks {

Result<std::optional<LoadRule>> find_load_rule(const kb::Kb& kb, std::string_view family,
                                               std::string_view library, std::string_view platform,
                                               std::string_view compiled) {
  auto rows = kb::rows_if(kb, "library_load_rules", [&](const kb::Row& r) {
    return r.get("library") == library &&
           (r.get("platform") == "any" || r.get("platform") == platform) &&
           kb::version_within(compiled, r.get("compiled_from"), r.get("compiled_to"));
  });
  if (!rows) return rows.error();
  // The family's own rows first, then the rows for any framework.
  for (const std::string_view wanted : {family, std::string_view("*")}) {
    for (const auto& r : *rows) {
      if (r.get("framework") != wanted) continue;
      return std::optional<LoadRule>(LoadRule{r.get("framework"), r.get("library"),
                                              r.get("platform"), r.get("rule"), r.get("notes"),
                                              r.get("source")});
    }
  }
  return std::optional<LoadRule>();
}

LoadVerdict judge_load(std::string_view rule, std::string_view compiled,
                       const std::optional<std::string>& loaded) {
  if (!loaded || !version::is_dotted(*loaded) || !version::is_dotted(compiled)) {
    return LoadVerdict::unknown;
  }
  const auto want = text::split(compiled, '.');
  const auto have = text::split(*loaded, '.');
  if (version::compare(want[0], have[0]) != 0) return LoadVerdict::rejected;
  if (rule == "same_major") return LoadVerdict::accepted;
  // The compiled version names no minor (a build_info.py that says only "7"): nothing to compare.
  if (want.size() < 2) return LoadVerdict::unknown;
  if (have.size() < 2) return LoadVerdict::unknown;
  const int minor = version::compare(have[1], want[1]);
  if (rule == "same_major_minor_at_least") {
    return minor >= 0 ? LoadVerdict::accepted : LoadVerdict::rejected;
  }
  if (rule == "same_major_minor") return minor == 0 ? LoadVerdict::accepted : LoadVerdict::rejected;
  return LoadVerdict::unknown;
}

}  // namespace gpuvet::checks
