#pragma once
// The command line: verbs, options, exit statuses (CONTRACTS.md).
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "kb/kb.hpp"
#include "kb/messages.hpp"
#include "report/report.hpp"
#include "system/system.hpp"

namespace gpuvet::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFound = 1;  // check: an error finding; others: the thing checked failed
inline constexpr int kExitUsage = 2;  // usage error or unreadable input

std::string tool_name();  // "gpuvet 0.1.0"

// Standard output, flushed; and a usage error as one "gpuvet: ..." line on standard error,
// returning kExitUsage.
// Both pass every text through the output net (for_output).
void print(const std::string& text);
int fail(const std::string& message);

// Every output passes here: the pattern net (redact::scrub_text), and with --redact-user the
// user's name and home replaced. `html`: the markers are written as HTML text (&lt;redacted&gt;).
std::string for_output(std::string_view text, bool html = false);
// The users --redact-user hides: the one running gpuvet, and the one of each snapshot read.
void redact_users_of(const std::map<std::string, std::string>& env);

// Probes -> Facts -> checks -> Findings, as one Report.
Result<report::Report> diagnose(const sys::System& system, const kb::Kb& kb,
                                const kb::Messages& messages);

// The language from the locale variables, as POSIX orders them (LC_ALL, LC_MESSAGES, LANG).
kb::Lang lang_from_environment();

// Runs gpuvet with these arguments (without the program name) and returns the exit status.
int run(std::vector<std::string> args);

}  // namespace gpuvet::cli
