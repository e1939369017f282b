#pragma once
// The process's surroundings: its terminal and its own executable (terminal_<platform>.cpp).
#include <optional>
#include <string>

namespace gpuvet::cli {

// True when standard output is an interactive terminal.
bool stdout_is_terminal();
// Makes the console print UTF-8 where that needs switching on (Windows); no-op elsewhere.
void prepare_console();
// The running gpuvet executable, which re-executes itself for risky native queries.
std::optional<std::string> current_executable();

}  // namespace gpuvet::cli
