#pragma once
// The terminal the report goes to (terminal_<platform>.cpp).
namespace gpuvet::cli {

// True when standard output is an interactive terminal.
bool stdout_is_terminal();
// Makes the console print UTF-8 where that needs switching on (Windows); no-op elsewhere.
void prepare_console();

}  // namespace gpuvet::cli
