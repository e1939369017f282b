#pragma once
// A log line as it reaches the user is often wrapped by what carried it: Docker's json-file log
// driver ({"log":"…\n","stream":"stderr",…}), Kubernetes' container log prefix, the journal's
// "Oct 23 10:22:21 host ollama[1234]: ", docker compose's "ollama-1  | ", torchrun's "[rank0]: ",
// a quoted reply's "> ", or a web page's HTML entities (&quot;, &#39;: decoded first, so "&gt; "
// is a quoted reply). The message inside is what the signatures and the reported cases know;
// explain reads it instead of the wrapping.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gpuvet::explain {

// The message of a wrapped line, or nullopt when the line is not wrapped in a form above (most
// lines: the checks look at a line's first bytes and for '&').
std::optional<std::string> unwrapped_message(std::string_view line);

// The line's message: unwrapped_message, or the line itself.
std::string message_of(std::string_view line);

// Where in a text a line whose message is escaped (HTML entities, a Docker json-file record with
// an escape besides its line's end) could first be, or npos: a signature's literal holding a
// quote or a backslash is not found in it as written, so a reader that skips lines without a
// literal must still deliver such a line.
size_t first_escaped_form(std::string_view text);

}  // namespace gpuvet::explain
