#pragma once
// Which loaded copy of a library a framework build accepts (data/library_load_rules.csv): the
// rule for a build's compiled version, and its verdict on the version of the copy that loads.
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "kb/kb.hpp"

namespace gpuvet::checks {

struct LoadRule {
  std::string framework;  // a family, or "*"
  std::string library;    // cudnn | cudart
  std::string platform;   // linux | windows | any
  std::string rule;       // same_major_minor_at_least | same_major_minor | same_major
  std::string notes;
  std::string source;
};

// The first row for this framework family (else "*"), library and platform whose compiled range
// holds `compiled`; nullopt when no row does.
Result<std::optional<LoadRule>> find_load_rule(const kb::Kb& kb, std::string_view family,
                                               std::string_view library, std::string_view platform,
                                               std::string_view compiled);

enum class LoadVerdict {
  accepted,  // the loaded copy satisfies the rule
  rejected,  // it does not: the framework refuses it (or fails on it)
  unknown,   // the loaded version (or the part of it the rule needs) is not known
};

// The rule's verdict on a loaded version, given the compiled one. A version too short for the rule
// ("8" where the minor decides) is unknown, unless the majors already differ.
LoadVerdict judge_load(std::string_view rule, std::string_view compiled,
                       const std::optional<std::string>& loaded);

}  // namespace gpuvet::checks
