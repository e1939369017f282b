#pragma once
// `gpuvet fleet report`: gpuvet.fleet/1 JSON (CONTRACTS.md), text and Markdown in the catalog's
// language, and one self-contained HTML page (render_fleet_html.cpp).
#include <string>

#include "fleet/fleet.hpp"
#include "kb/messages.hpp"

namespace gpuvet::report {

std::string render_fleet_json(const fleet::Report& report);
std::string render_fleet_text(const fleet::Report& report, const kb::Messages& messages,
                              bool color);
std::string render_fleet_md(const fleet::Report& report, const kb::Messages& messages);
// Drift first, then the nodes in a table that sorts by any column (a click, or #sort=COLUMN in
// the address, -desc for descending), then the groups.
std::string render_fleet_html(const fleet::Report& report, const kb::Messages& messages);

}  // namespace gpuvet::report
