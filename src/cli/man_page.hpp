#pragma once
// gpuvet(1), written from the same declarations as --help (command_model.hpp), in roff.
#include <string>
#include <string_view>

#include "cli/command_model.hpp"
#include "kb/messages.hpp"

namespace gpuvet::cli {

// `version`: "gpuvet 0.1.0"; `date`: the knowledge base's, so that the page is reproducible.
std::string render_man_page(const CommandModel& command_line, const kb::Messages& messages,
                            std::string_view version, std::string_view date);

}  // namespace gpuvet::cli
