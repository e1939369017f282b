#pragma once
// The process's surroundings: its terminal, its arguments and its own executable
// (terminal_<platform>.cpp).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvet::platform {

// Writes UTF-8 text to standard output and flushes it. On a Windows console as UTF-16
// (WriteConsoleW), so no code page or buffer boundary can split a character.
void write_stdout(std::string_view text);
// True when standard output is an interactive terminal.
bool stdout_is_terminal();
// True when standard input is an interactive terminal: someone who can answer a question.
bool stdin_is_terminal();
// True when standard output is a terminal that shows ANSI colour sequences: not TERM=dumb; on
// Windows a console whose virtual terminal processing could be switched on (conhost before
// Windows 10 1511 cannot, and would print the escape bytes as text).
bool terminal_supports_colour();
// Makes the console print UTF-8 where that needs switching on (Windows); no-op elsewhere.
void prepare_console();
// The command line as UTF-8 strings, argv[0] included. POSIX: argv as it is. Windows: main()'s
// argv is in the ANSI code page, which cannot hold every path, so it is read again as UTF-16.
std::vector<std::string> utf8_arguments(int argc, char** argv);
// The user's display language as a locale name ("zh-CN") where the system keeps one apart from
// the environment (Windows); nullopt elsewhere.
std::optional<std::string> user_locale();
// The running gpuvet executable, which re-executes itself for risky native queries.
std::optional<std::string> current_executable();

}  // namespace gpuvet::platform
