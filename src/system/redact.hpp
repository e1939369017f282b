#pragma once
// Secrets never leave the machine: a snapshot keeps the values of path-, CUDA-, GPU- and
// framework-related environment variables only; every other value becomes "<redacted>".
#include <map>
#include <string>
#include <string_view>

namespace gpuvet::redact {

inline constexpr const char* kRedacted = "<redacted>";

// True when the variable's value may be kept (its name is on the allow-list and does not look
// like a credential).
bool is_kept(std::string_view name);
// Removes "user:password@" from URLs inside a kept value.
std::string scrub_value(std::string_view value);
std::map<std::string, std::string> environment(const std::map<std::string, std::string>& env);

}  // namespace gpuvet::redact
