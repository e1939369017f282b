#pragma once
// Secrets never leave the machine: a snapshot keeps the values of path-, CUDA-, GPU- and
// framework-related environment variables only; every other value becomes "<redacted>". Every
// output then passes a pattern net (scrub_text), and --redact-user hides the user's name.
// docs/privacy.md says what is kept and what is removed.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvet::redact {

inline constexpr const char* kRedacted = "<redacted>";

// True when the variable's value may be kept (its name is on the allow-list and does not look
// like a credential).
bool is_kept(std::string_view name);
// The pattern net over any text (kept values, file contents, whole reports): credentials in
// URLs ("user:password@", anaconda.org's "/t/<token>"), the value of key=value and key: value
// where the key says password, token, secret or key, and well-known token shapes (GitHub,
// Hugging Face, OpenAI, AWS, Slack, JWT ...). Each becomes `marker`. Idempotent, and safe on
// JSON text: a replaced value never takes a quote or a backslash with it.
std::string scrub_text(std::string_view text, std::string_view marker = kRedacted);
// The net over a kept environment value.
std::string scrub_value(std::string_view value);
std::map<std::string, std::string> environment(const std::map<std::string, std::string>& env);

// True when a name (a YAML or JSON key, a registry value name) says its value is a credential.
bool is_secret_name(std::string_view name);

// The user whose name and home directory --redact-user replaces.
struct Identity {
  std::string user;  // may be empty: then the home's last component
  std::string home;  // may be empty
};
// The identity of an environment: USER / USERNAME / LOGNAME, HOME / USERPROFILE.
Identity identity_of(const std::map<std::string, std::string>& env);
// Replaces each identity's user name wherever it is a whole path component, in any separator
// spelling ("/home/alice" -> "/home/<user>", "C:\\Users\\alice" -> "C:\\Users\\<user>"), and a
// home that does not end in the name by "<home>". Names compare case-insensitively (Windows).
std::string redact_user(std::string_view text, const std::vector<Identity>& identities,
                        std::string_view user_marker = "<user>");

}  // namespace gpuvet::redact
