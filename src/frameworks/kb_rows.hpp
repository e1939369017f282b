#pragma once
// Small readers of the knowledge base's build tables that several frameworks share.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"
#include "frameworks/framework.hpp"
#include "kb/kb.hpp"
#include "kb/queries.hpp"

namespace gpuvet::frameworks {

std::optional<std::string> non_empty(const std::string& value);
// "3.11 (3.12 experimental)" -> "3.11".
std::optional<std::string> leading_version(const std::string& cell);
// cu80 -> 8.0, cu102 -> 10.2, cu121 -> 12.1: the last digit is the minor version.
std::optional<std::string> cuda_of_tag(const std::string& tag);
// "cu126:5.0|cu128:7.5" -> the value for one tag.
std::string per_tag(const std::string& cell, const std::string& tag);
// The data/framework_packages row of a family's version on a platform, if any.
Result<std::optional<kb::Row>> package_row(const kb::Kb& kb, const std::string& family,
                                           const std::string& platform, const std::string& version);
// The releases a table's version_from..version_to range names, each with whether it is a series:
// 13.0.0..13.6.0 -> 13.0 .. 13.6 (series), 2.6.0..2.6.1 -> 2.6.0, 2.6.1, 3.1..3.2 -> 3.1, 3.2
// (series), 2.5..2.5 -> 2.5 (series). Pre-releases (3.0.0b0) and ranges across majors give nothing.
std::vector<std::pair<std::string, bool>> releases_in(const std::string& from,
                                                      const std::string& to);
// A name part for environments: the variant, with a package's extras: ("cuda12",
// "onnxruntime-gpu[cuda,cudnn]") -> "cuda12-cuda-cudnn"; ("cuda12", "onnxruntime-gpu") -> "cuda12".
std::string variant_with_extras(const std::string& variant, const std::string& package);
// "linux;windows" -> {"linux", "windows"}.
std::vector<std::string> platforms_of(const std::string& cell);

// A release table's row as a Build: the columns the release tables share (python_min/max, cuda,
// cudnn, min_cc, index_option/url, wheels_bring_cuda, source), each read where the table has it.
Build build_from_row(const kb::Row& row, std::string_view table, std::string_view family,
                     const std::string& platform, const std::string& release, bool series);
// Every (release, platform) of a release table: one Build per release its version_from..
// version_to names and per platform its `platform_column` lists, finished by `finish`.
Result<std::vector<Build>> builds_from_table(const kb::Kb& kb, std::string_view table,
                                             std::string_view family,
                                             std::string_view platform_column,
                                             void (*finish)(const kb::Row& row, Build& b));

}  // namespace gpuvet::frameworks
