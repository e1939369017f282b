#pragma once
// The lines of a start-up or activation script, read as the shells read them, far enough to find
// the one statement that sets a variable and to comment it out without disturbing any other byte.
// Pure text: no file is read here.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvet::fix {

// Each kind spells an assignment and a comment its own way.
enum class ScriptKind {
  posix_shell,      // sh, bash, zsh: export NAME=value, NAME=value, declare -x NAME=value
  csh,              // csh, tcsh: setenv NAME value
  fish,             // set -x NAME value, set -gx NAME value
  etc_environment,  // pam_env's /etc/environment and ~/.pam_environment: NAME=value
  batch,            // cmd: set NAME=value, set "NAME=value"
};

// From the file's name: ".bat"/".cmd" batch, ".fish" fish, "environment" pam_env, ".cshrc" csh...
ScriptKind script_kind_of(std::string_view path);

// A script's text as UTF-8, and how its file spells it: Windows editors save .bat files in UTF-16
// with a byte order mark, or UTF-8 with one.
enum class ScriptEncoding { utf8, utf8_bom, utf16le_bom };
struct ScriptText {
  std::string utf8;
  ScriptEncoding encoding = ScriptEncoding::utf8;
};
// nullopt when the bytes are not text this reader can write back byte for byte (UTF-16 with a
// lone surrogate, an odd length).
std::optional<ScriptText> decode_script(std::string_view bytes);
std::string encode_script(const ScriptText& text);

// A line and the bytes that end it ("\n", "\r\n" or "" for a last line without one), so that
// joining them again gives back the file byte for byte.
struct ScriptLine {
  std::string_view text;
  std::string_view ending;
};
std::vector<ScriptLine> split_lines(std::string_view bytes);

// A line that assigns `name`. `sole`: the assignment is the line's only statement (a trailing
// comment aside), so commenting the line out changes nothing else.
struct Assignment {
  std::string value;  // as written, quotes removed
  bool sole = true;
};
std::optional<Assignment> assignment_of(std::string_view line, std::string_view name,
                                        ScriptKind kind);

// The line commented out, with `marker` ("gpuvet fix ...") after it. An indented POSIX line may
// be the only statement of an if or a loop, whose body a shell refuses to find empty: it becomes
// the no-op command ":" with the old text as its comment.
std::string commented_out(std::string_view line, ScriptKind kind, std::string_view marker);

// A line that assigns `name` = `value` in this kind's spelling, for a script gpuvet writes.
std::string assignment_line(std::string_view name, std::string_view value, ScriptKind kind);

}  // namespace gpuvet::fix
