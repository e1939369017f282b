#include "core/windows_paths.hpp"

#include <algorithm>

namespace gpuvet::windows_paths {

namespace {

bool is_separator(char c) {
  return c == '/' || c == '\\';
}

bool is_ascii_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Whether text[..end) ends with an ANSI colour sequence (ESC [ 1 ; 31 m).
bool after_colour_code(std::string_view text, size_t end) {
  if (end == 0 || text[end - 1] != 'm') return false;
  size_t k = end - 1;
  while (k > 0 && ((text[k - 1] >= '0' && text[k - 1] <= '9') || text[k - 1] == ';'))
    --k;
  return k >= 2 && text[k - 1] == '[' && text[k - 2] == '\x1b';
}

// "C:/" or "c:\" at i, not inside a word or a URL ("https://", "file:///C:/").
bool starts_path(std::string_view text, size_t i) {
  if (i + 2 >= text.size()) return false;
  const char drive = text[i];
  const bool letter = (drive >= 'a' && drive <= 'z') || (drive >= 'A' && drive <= 'Z');
  if (!letter || text[i + 1] != ':' || !is_separator(text[i + 2])) return false;
  if (i == 0) return true;
  const char before = text[i - 1];
  if (after_colour_code(text, i)) return true;
  return !is_ascii_alnum(before) && before != '_' && before != '-' && before != '/' &&
         before != '\\' && before != '.';
}

// Chinese punctuation that ends a path in a sentence: ， ： ； （ ） 。 、
constexpr std::string_view kFullWidthStops[] = {"\xEF\xBC\x8C", "\xEF\xBC\x9A", "\xEF\xBC\x9B",
                                                "\xEF\xBC\x88", "\xEF\xBC\x89", "\xE3\x80\x82",
                                                "\xE3\x80\x81"};

// A character no Windows file name holds, or one that ends a path in a sentence.
bool ends_path(std::string_view text, size_t i) {
  const std::string_view rest = text.substr(i);
  for (const std::string_view stop : kFullWidthStops) {
    if (rest.starts_with(stop)) return true;
  }
  const char c = text[i];
  const auto byte = static_cast<unsigned char>(c);
  if (byte < 0x20 || byte == 0x7f) return true;  // control characters, ANSI colour codes
  switch (c) {
    case '"':
    case '`':
    case '<':
    case '>':
    case '|':
    case '?':
    case ':':
    case ';':
    case ']':
      return true;
    case '\'':  // a quote that closes, not the one in "O'Brien"
      return i + 1 >= text.size() || !is_ascii_alnum(text[i + 1]);
    case ',':
    case '.':  // ", " or ". ": the sentence goes on, the path does not
      return i + 1 < text.size() && text[i + 1] == ' ';
    default:
      return false;
  }
}

// At a space inside a path: whether the path goes on, that is whether another separator follows
// within a few words ("Program Files/", "NVIDIA GPU Computing Toolkit/") before anything that
// ends a path.
bool continues_after_space(std::string_view text, size_t space) {
  constexpr int kMaxSpaces = 3;
  int spaces = 0;
  for (size_t k = space; k < text.size(); ++k) {
    const char c = text[k];
    if (is_separator(c)) return true;
    if (c == ' ') {
      if (++spaces > kMaxSpaces) return false;
      if (k + 1 < text.size() && text[k + 1] == ' ') return false;
      continue;
    }
    if (ends_path(text, k)) return false;
  }
  return false;
}

}  // namespace

std::string native(std::string_view path) {
  std::string out(path);
  std::replace(out.begin(), out.end(), '/', '\\');
  return out;
}

std::string in_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (!starts_path(text, i)) {
      out.push_back(text[i++]);
      continue;
    }
    out.append(text.substr(i, 2));  // "C:"
    size_t j = i + 2;
    int open = 0;  // parentheses the path opened: "Program Files (x86)"
    while (j < text.size()) {
      const char c = text[j];
      if (is_separator(c)) {
        out.push_back('\\');
        ++j;
        continue;
      }
      if (ends_path(text, j)) break;
      if (c == ')') {
        if (open == 0) break;
        --open;
      }
      if (c == '(') ++open;
      if (c == ' ' && !continues_after_space(text, j)) break;
      out.push_back(c);
      ++j;
    }
    i = j;
  }
  return out;
}

}  // namespace gpuvet::windows_paths
