#pragma once
// `gpuvet bench --html`: one self-contained HTML5 page (inline CSS, inline SVG charts drawn here,
// no script, no external asset) with the device, the bandwidth sweeps, the GEMM rates against
// their peaks and every result.
#include <string>
#include <string_view>

#include "bench/bench.hpp"
#include "kb/messages.hpp"

namespace gpuvet::report {

// In the catalog's language (the page's lang attribute too).
std::string render_bench_html(const bench::Report& report, const std::string& title,
                              const kb::Messages& messages);

// Text made safe for HTML content and for quoted attribute values: & < > " ' become entities.
std::string html_escape(std::string_view text);

}  // namespace gpuvet::report
