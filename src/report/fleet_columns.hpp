#pragma once
// What the fleet's text, Markdown and HTML renderings share: the node table's columns and cells.
#include <string>
#include <vector>

#include "fleet/fleet.hpp"
#include "kb/messages.hpp"

namespace gpuvet::report {

std::string verdict_key(fleet::Verdict verdict);
// The catalog keys of the node table's column titles, in order.
std::vector<std::string> column_keys();
// A compared fact's value as shown: the words compare_facts uses for a state ("none", "unknown",
// "absent", "unset", "enabled", "disabled", "mixed") in the catalog's language.
std::string display_value(const std::string& value, const kb::Messages& messages);
std::string summary_line(const fleet::Report& report, const kb::Messages& messages);
std::string group_line(const fleet::Group& group, const kb::Messages& messages);
// One node's cells, in column order.
std::vector<std::string> node_cells(const fleet::Node& node, const kb::Messages& messages);

}  // namespace gpuvet::report
