#include "fix/script_lines.hpp"

#include "core/text.hpp"

namespace gpuvet::fix {

namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

std::string_view file_name(std::string_view path) {
  const size_t slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// One shell word, quotes removed, as far as these scripts need: '...', "..." with \-escapes, and
// \x outside quotes.
struct Word {
  std::string text;
};

// The words of a line up to its first unquoted command separator or comment; `rest` is what the
// separator starts (empty when the line holds one command).
struct Words {
  std::vector<Word> words;
  std::string_view rest;
};

Words split_words(std::string_view line) {
  Words out;
  size_t i = 0;
  while (true) {
    while (i < line.size() && is_blank(line[i]))
      ++i;
    if (i >= line.size()) break;
    const char c = line[i];
    if (c == '#' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' ||
        c == '>') {
      out.rest = line.substr(i);
      break;
    }
    Word word;
    while (i < line.size() && !is_blank(line[i])) {
      const char d = line[i];
      if (d == ';' || d == '&' || d == '|' || d == '<' || d == '>') break;
      if (d == '\'') {
        const size_t close = line.find('\'', i + 1);
        const size_t end = close == std::string_view::npos ? line.size() : close;
        word.text.append(line.substr(i + 1, end - i - 1));
        i = close == std::string_view::npos ? line.size() : close + 1;
      } else if (d == '"') {
        ++i;
        while (i < line.size() && line[i] != '"') {
          if (line[i] == '\\' && i + 1 < line.size()) ++i;
          word.text.push_back(line[i++]);
        }
        if (i < line.size()) ++i;
      } else if (d == '\\' && i + 1 < line.size()) {
        word.text.push_back(line[i + 1]);
        i += 2;
      } else {
        word.text.push_back(d);
        ++i;
      }
    }
    out.words.push_back(std::move(word));
  }
  return out;
}

// What follows the command ends the line harmlessly: nothing, a comment, or a lone ";".
bool rest_is_harmless(std::string_view rest) {
  rest = text::trim(rest);
  if (!rest.empty() && rest.front() == ';') rest = text::trim(rest.substr(1));
  return rest.empty() || rest.front() == '#';
}

std::optional<Assignment> posix_assignment(const Words& words, std::string_view name) {
  size_t first = 0;
  const auto& w = words.words;
  if (first < w.size() &&
      (w[first].text == "export" || w[first].text == "declare" || w[first].text == "typeset")) {
    const bool declare = w[first].text != "export";
    ++first;
    bool exported = !declare;
    while (first < w.size() && w[first].text.starts_with("-")) {
      exported = exported || w[first].text.find('x') != std::string::npos;
      ++first;
    }
    if (!exported) return std::nullopt;
  }
  const std::string prefix = std::string(name) + "=";
  std::optional<Assignment> found;
  size_t assignments = 0;
  bool other_words = false;
  for (size_t i = first; i < w.size(); ++i) {
    if (w[i].text.starts_with(prefix)) {
      found = Assignment{w[i].text.substr(prefix.size()), true};
      ++assignments;
    } else {
      other_words = true;
    }
  }
  if (!found) return std::nullopt;
  // "NAME=value command" sets it for that command only: no origin of the variable.
  if (first == 0 && other_words) return std::nullopt;
  found->sole = assignments == 1 && !other_words && rest_is_harmless(words.rest);
  return found;
}

std::optional<Assignment> csh_assignment(const Words& words, std::string_view name) {
  const auto& w = words.words;
  if (w.size() < 2 || w[0].text != "setenv" || w[1].text != name) return std::nullopt;
  return Assignment{w.size() > 2 ? w[2].text : std::string(),
                    w.size() <= 3 && rest_is_harmless(words.rest)};
}

std::optional<Assignment> fish_assignment(const Words& words, std::string_view name) {
  const auto& w = words.words;
  if (w.empty() || w[0].text != "set") return std::nullopt;
  size_t i = 1;
  bool exported = false;
  while (i < w.size() && w[i].text.starts_with("-")) {
    const std::string& flag = w[i].text;
    if (flag == "--export") exported = true;
    if (flag.starts_with("--")) {
      if (flag == "--erase" || flag == "--query") return std::nullopt;
    } else {
      if (flag.find('x') != std::string::npos) exported = true;
      if (flag.find('e') != std::string::npos || flag.find('q') != std::string::npos) {
        return std::nullopt;
      }
    }
    ++i;
  }
  if (!exported || i >= w.size() || w[i].text != name) return std::nullopt;
  std::vector<std::string> values;
  for (size_t j = i + 1; j < w.size(); ++j)
    values.push_back(w[j].text);
  return Assignment{text::join(values, " "), rest_is_harmless(words.rest)};
}

// cmd's `set NAME=value` takes the rest of the line as the value; `set "NAME=value"` what is
// inside the quotes. A name compares without case, as cmd's do.
std::optional<Assignment> batch_assignment(std::string_view line, std::string_view name) {
  std::string_view s = text::trim(line);
  if (!s.empty() && s.front() == '@') s = text::trim(s.substr(1));
  if (s.size() < 4 || !text::starts_with_icase(s, "set") || !is_blank(s[3])) return std::nullopt;
  s = text::trim(s.substr(4));
  if (!s.empty() && s.front() == '/') return std::nullopt;  // set /a, set /p
  const bool quoted = !s.empty() && s.front() == '"';
  if (quoted) s.remove_prefix(1);
  if (s.size() <= name.size() || !text::starts_with_icase(s, name) || s[name.size()] != '=') {
    return std::nullopt;
  }
  std::string_view value = s.substr(name.size() + 1);
  std::string_view after;
  if (quoted) {
    const size_t close = value.rfind('"');
    if (close != std::string_view::npos) {
      after = value.substr(close + 1);
      value = value.substr(0, close);
    }
  } else {
    const size_t amp = value.find_first_of("&|");
    if (amp != std::string_view::npos) {
      after = value.substr(amp);
      value = value.substr(0, amp);
    }
  }
  return Assignment{std::string(value), text::trim(after).empty()};
}

bool is_comment(std::string_view line, ScriptKind kind) {
  const std::string_view s = text::trim(line);
  if (kind == ScriptKind::batch) {
    return s.starts_with("::") || (s.size() >= 3 && text::starts_with_icase(s, "rem") &&
                                   (s.size() == 3 || is_blank(s[3])));
  }
  return s.starts_with("#");
}

bool needs_single_quotes(std::string_view value) {
  for (const char c : value) {
    const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '-' || c == '.' || c == '/' || c == ':' || c == ',' ||
                       c == '=' || c == '+';
    if (!plain) return true;
  }
  return value.empty();
}

std::string single_quoted(std::string_view value) {
  std::string out = "'";
  for (const char c : value) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
constexpr std::string_view kUtf16LeBom = "\xFF\xFE";

void append_utf16le(std::string& out, char32_t c) {
  const auto unit = [&](char32_t u) {
    out.push_back(static_cast<char>(u & 0xFF));
    out.push_back(static_cast<char>((u >> 8) & 0xFF));
  };
  if (c < 0x10000) {
    unit(c);
  } else {
    c -= 0x10000;
    unit(0xD800 + (c >> 10));
    unit(0xDC00 + (c & 0x3FF));
  }
}

std::optional<std::string> utf16le_to_utf8(std::string_view bytes) {
  if (bytes.size() % 2 != 0) return std::nullopt;
  std::string out;
  const auto unit = [&](size_t i) {
    return static_cast<char32_t>(static_cast<unsigned char>(bytes[i]) |
                                 (static_cast<unsigned char>(bytes[i + 1]) << 8));
  };
  for (size_t i = 0; i < bytes.size(); i += 2) {
    char32_t c = unit(i);
    if (c >= 0xD800 && c <= 0xDBFF) {
      if (i + 3 >= bytes.size()) return std::nullopt;
      const char32_t low = unit(i + 2);
      if (low < 0xDC00 || low > 0xDFFF) return std::nullopt;
      c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
      i += 2;
    } else if (c >= 0xDC00 && c <= 0xDFFF) {
      return std::nullopt;
    }
    text::append_utf8(out, c);
  }
  return out;
}

// UTF-8 back to UTF-16LE; the text came from utf16le_to_utf8 or from gpuvet, so it is valid.
std::string utf8_to_utf16le(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const int length = byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4;
    char32_t c = length == 1   ? byte
                 : length == 2 ? byte & 0x1F
                 : length == 3 ? byte & 0x0F
                               : byte & 0x07;
    for (int k = 1; k < length && i + static_cast<size_t>(k) < text.size(); ++k)
      c = (c << 6) | (static_cast<unsigned char>(text[i + static_cast<size_t>(k)]) & 0x3F);
    append_utf16le(out, c);
    i += static_cast<size_t>(length);
  }
  return out;
}

}  // namespace

std::optional<ScriptText> decode_script(std::string_view bytes) {
  if (bytes.starts_with(kUtf16LeBom)) {
    auto text = utf16le_to_utf8(bytes.substr(kUtf16LeBom.size()));
    if (!text) return std::nullopt;
    ScriptText decoded{std::move(*text), ScriptEncoding::utf16le_bom};
    if (encode_script(decoded) != bytes) return std::nullopt;
    return decoded;
  }
  if (bytes.starts_with(kUtf8Bom)) {
    return ScriptText{std::string(bytes.substr(kUtf8Bom.size())), ScriptEncoding::utf8_bom};
  }
  return ScriptText{std::string(bytes), ScriptEncoding::utf8};
}

std::string encode_script(const ScriptText& text) {
  switch (text.encoding) {
    case ScriptEncoding::utf16le_bom:
      return std::string(kUtf16LeBom) + utf8_to_utf16le(text.utf8);
    case ScriptEncoding::utf8_bom:
      return std::string(kUtf8Bom) + text.utf8;
    case ScriptEncoding::utf8:
      break;
  }
  return text.utf8;
}

ScriptKind script_kind_of(std::string_view path) {
  const std::string name = text::to_lower(file_name(path));
  if (name.ends_with(".bat") || name.ends_with(".cmd")) return ScriptKind::batch;
  if (name.ends_with(".fish")) return ScriptKind::fish;
  if (name == "environment" || name == ".pam_environment") return ScriptKind::etc_environment;
  if (name == ".cshrc" || name == ".tcshrc" || name == ".login" || name.ends_with(".csh")) {
    return ScriptKind::csh;
  }
  return ScriptKind::posix_shell;
}

std::vector<ScriptLine> split_lines(std::string_view bytes) {
  std::vector<ScriptLine> lines;
  size_t start = 0;
  while (start < bytes.size()) {
    const size_t newline = bytes.find('\n', start);
    if (newline == std::string_view::npos) {
      lines.push_back({bytes.substr(start), {}});
      break;
    }
    const bool crlf = newline > start && bytes[newline - 1] == '\r';
    const size_t text_end = crlf ? newline - 1 : newline;
    lines.push_back(
        {bytes.substr(start, text_end - start), bytes.substr(text_end, newline + 1 - text_end)});
    start = newline + 1;
  }
  return lines;
}

std::optional<Assignment> assignment_of(std::string_view line, std::string_view name,
                                        ScriptKind kind) {
  if (name.empty() || is_comment(line, kind)) return std::nullopt;
  switch (kind) {
    case ScriptKind::batch:
      return batch_assignment(line, name);
    case ScriptKind::csh:
      return csh_assignment(split_words(line), name);
    case ScriptKind::fish:
      return fish_assignment(split_words(line), name);
    case ScriptKind::etc_environment:
    case ScriptKind::posix_shell:
      return posix_assignment(split_words(line), name);
  }
  return std::nullopt;
}

std::string commented_out(std::string_view line, ScriptKind kind, std::string_view marker) {
  if (kind == ScriptKind::batch) {
    return "rem " + std::string(text::trim(line)) + "  " + std::string(marker);
  }
  size_t indent = 0;
  while (indent < line.size() && is_blank(line[indent]))
    ++indent;
  const std::string body(line.substr(indent));
  if (indent > 0 && kind == ScriptKind::posix_shell) {
    return std::string(line.substr(0, indent)) + ": # " + body + "  # " + std::string(marker);
  }
  return std::string(line.substr(0, indent)) + "# " + body + "  # " + std::string(marker);
}

std::string assignment_line(std::string_view name, std::string_view value, ScriptKind kind) {
  const std::string n(name);
  const std::string v = needs_single_quotes(value) ? single_quoted(value) : std::string(value);
  switch (kind) {
    case ScriptKind::batch:
      return "set \"" + n + "=" + std::string(value) + "\"";
    case ScriptKind::csh:
      return "setenv " + n + " " + v;
    case ScriptKind::fish:
      return "set -gx " + n + " " + v;
    case ScriptKind::etc_environment:  // pam_env: double quotes hold spaces
      return n + "=" +
             (value.find_first_of(" \t'") == std::string_view::npos
                  ? std::string(value)
                  : "\"" + std::string(value) + "\"");
    case ScriptKind::posix_shell:
      return "export " + n + "=" + v;
  }
  return {};
}

}  // namespace gpuvet::fix
