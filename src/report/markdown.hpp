#pragma once
// GitHub-flavoured Markdown pieces shared by the md renderers (check, explain, plan): text that
// survives being pasted into an issue whatever characters it holds.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace gpuvet::report::md {

// The longest run of c in s.
inline size_t longest_run(std::string_view s, char c) {
  size_t longest = 0;
  size_t run = 0;
  for (char x : s) {
    run = x == c ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

// Inline code that survives backticks inside the text.
inline std::string code(std::string_view s) {
  const std::string fence(longest_run(s, '`') + 1, '`');
  const bool pad = s.find('`') != std::string_view::npos;
  return fence + (pad ? " " : "") + std::string(s) + (pad ? " " : "") + fence;
}

// Inside a table cell a '|' ends the cell and a newline ends the row.
inline std::string cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += "<br>";
    } else {
      out += c;
    }
  }
  return out;
}

// A fenced code block ("bat", "powershell", "sh", "text"), indented for a list item; its fence
// is longer than any backtick run inside, so no line can close it early.
inline std::string fence(std::string_view language, const std::vector<std::string>& lines,
                         std::string_view indent = "") {
  size_t longest = 2;
  for (const auto& line : lines)
    longest = std::max(longest, longest_run(line, '`'));
  const std::string marks(longest + 1, '`');
  std::string out = std::string(indent) + marks + std::string(language) + "\n";
  for (const auto& line : lines)
    out += std::string(indent) + line + "\n";
  return out + std::string(indent) + marks + "\n";
}

// One line of prose in a list item: a line break inside would end the item.
inline std::string line(std::string_view s) {
  std::string out(s);
  std::replace(out.begin(), out.end(), '\n', ' ');
  return out;
}

}  // namespace gpuvet::report::md
