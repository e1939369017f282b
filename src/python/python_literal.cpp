#include "python/python_literal.hpp"

#include <cctype>
#include <stdexcept>

#include "core/text.hpp"

namespace gpuvet::python {

namespace {

struct NotALiteral : std::runtime_error {
  NotALiteral() : std::runtime_error("not a literal") {}
};

// Nesting deeper than this is not a generated metadata file.
constexpr int kMaxDepth = 32;

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

class LiteralParser {
 public:
  LiteralParser(std::string_view source, size_t pos) : s_(source), pos_(pos) {}

  PyValue value(int depth = 0) {
    if (depth > kMaxDepth) throw NotALiteral();
    skip_space();
    if (pos_ >= s_.size()) throw NotALiteral();
    const char c = s_[pos_];
    if (c == '[') return sequence(']', depth);
    if (c == '(') return sequence(')', depth);
    if (c == '{') return dict(depth);
    if (c == '-' || c == '+' || std::isdigit(static_cast<unsigned char>(c))) return number();
    if (starts_string()) return strings();
    return word(depth);
  }

  size_t position() const { return pos_; }

 private:
  void skip_space() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n')
          ++pos_;
      } else if (c == '\\' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') {
        pos_ += 2;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++pos_;
      } else {
        return;
      }
    }
  }

  bool eat(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!eat(c)) throw NotALiteral();
  }

  // A string literal may carry up to two prefix letters: r, u, b, f (f-strings are not literals).
  bool starts_string() const {
    size_t p = pos_;
    for (int i = 0; i < 2 && p < s_.size(); ++i) {
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s_[p])));
      if (c != 'r' && c != 'u' && c != 'b') break;
      ++p;
    }
    return p < s_.size() && (s_[p] == '\'' || s_[p] == '"');
  }

  PyValue strings() {
    PyValue v;
    v.kind = PyValue::Kind::string;
    do {
      v.text += string_literal();
      skip_space();
    } while (pos_ < s_.size() && starts_string());
    return v;
  }

  std::string string_literal() {
    bool raw = false;
    while (s_[pos_] != '\'' && s_[pos_] != '"') {
      if (std::tolower(static_cast<unsigned char>(s_[pos_])) == 'r') raw = true;
      ++pos_;
    }
    const char quote = s_[pos_];
    const bool triple = s_.substr(pos_, 3) == std::string(3, quote);
    pos_ += triple ? 3 : 1;
    std::string out;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == quote && (!triple || s_.substr(pos_, 3) == std::string(3, quote))) {
        pos_ += triple ? 3 : 1;
        return out;
      }
      if (c == '\n' && !triple) throw NotALiteral();
      if (c == '\\' && !raw && pos_ + 1 < s_.size()) {
        out.push_back(escaped(s_[pos_ + 1]));
        pos_ += 2;
        continue;
      }
      out.push_back(c);
      ++pos_;
    }
    throw NotALiteral();  // unterminated
  }

  static char escaped(char c) {
    switch (c) {
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'r':
        return '\r';
      case '0':
        return '\0';
      default:
        return c;  // \\ \' \" and anything unknown stand for themselves
    }
  }

  PyValue number() {
    PyValue v;
    v.kind = PyValue::Kind::number;
    const size_t start = pos_;
    if (s_[pos_] == '-' || s_[pos_] == '+') ++pos_;
    while (pos_ < s_.size() && (is_identifier_char(s_[pos_]) || s_[pos_] == '.'))
      ++pos_;
    v.text = std::string(s_.substr(start, pos_ - start));
    if (v.text == "-" || v.text == "+") throw NotALiteral();
    return v;
  }

  std::string identifier() {
    const size_t start = pos_;
    while (pos_ < s_.size() && (is_identifier_char(s_[pos_]) || s_[pos_] == '.'))
      ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }

  PyValue word(int depth) {
    const std::string name = identifier();
    PyValue v;
    if (name == "None") return v;
    if (name == "True" || name == "False") {
      v.kind = PyValue::Kind::boolean;
      v.boolean = name == "True";
      return v;
    }
    // OrderedDict([(k, v), ...]) and dict([...]): a dict of pairs.
    if (name == "collections.OrderedDict" || name == "OrderedDict" || name == "dict") {
      expect('(');
      v.kind = PyValue::Kind::dict;
      if (eat(')')) return v;
      const PyValue pairs = value(depth + 1);
      expect(')');
      if (pairs.kind == PyValue::Kind::dict) return pairs;
      if (pairs.kind != PyValue::Kind::list) throw NotALiteral();
      for (const auto& pair : pairs.items) {
        if (pair.kind != PyValue::Kind::list || pair.items.size() != 2) throw NotALiteral();
        v.entries.emplace_back(pair.items[0], pair.items[1]);
      }
      return v;
    }
    throw NotALiteral();
  }

  PyValue sequence(char close, int depth) {
    ++pos_;
    PyValue v;
    v.kind = PyValue::Kind::list;
    while (!eat(close)) {
      v.items.push_back(value(depth + 1));
      if (!eat(',')) {
        expect(close);
        break;
      }
    }
    return v;
  }

  PyValue dict(int depth) {
    ++pos_;
    PyValue v;
    v.kind = PyValue::Kind::dict;
    while (!eat('}')) {
      PyValue key = value(depth + 1);
      expect(':');
      PyValue item = value(depth + 1);
      v.entries.emplace_back(std::move(key), std::move(item));
      if (!eat(',')) {
        expect('}');
        break;
      }
    }
    return v;
  }

  std::string_view s_;
  size_t pos_;
};

// Past the end of the statement that starts at `pos`: brackets and strings may span lines.
size_t skip_statement(std::string_view s, size_t pos) {
  int depth = 0;
  while (pos < s.size()) {
    const char c = s[pos];
    if (c == '\'' || c == '"') {
      const bool triple = s.substr(pos, 3) == std::string(3, c);
      pos += triple ? 3 : 1;
      while (pos < s.size()) {
        if (s[pos] == '\\') {
          pos += 2;
          continue;
        }
        if (s[pos] == c && (!triple || s.substr(pos, 3) == std::string(3, c))) {
          pos += triple ? 3 : 1;
          break;
        }
        if (s[pos] == '\n' && !triple) break;
        ++pos;
      }
      continue;
    }
    if (c == '#') {
      while (pos < s.size() && s[pos] != '\n')
        ++pos;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    if (c == '\n' && depth == 0) return pos + 1;
    ++pos;
  }
  return pos;
}

// At a line start: `NAME =` or `NAME: annotation =`; returns the name and the value's position.
std::optional<std::pair<std::string, size_t>> assignment_at(std::string_view s, size_t pos) {
  const size_t start = pos;
  if (pos >= s.size() || !(std::isalpha(static_cast<unsigned char>(s[pos])) || s[pos] == '_')) {
    return std::nullopt;
  }
  while (pos < s.size() && is_identifier_char(s[pos]))
    ++pos;
  std::string name(s.substr(start, pos - start));
  while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t'))
    ++pos;
  if (pos < s.size() && s[pos] == ':') {
    // The annotation runs to the '=' outside brackets.
    int depth = 0;
    ++pos;
    while (pos < s.size() && s[pos] != '\n') {
      if (s[pos] == '[' || s[pos] == '(') ++depth;
      if ((s[pos] == ']' || s[pos] == ')') && depth > 0) --depth;
      if (s[pos] == '=' && depth == 0) break;
      ++pos;
    }
  }
  if (pos >= s.size() || s[pos] != '=' || (pos + 1 < s.size() && s[pos + 1] == '=')) {
    return std::nullopt;
  }
  return std::make_pair(std::move(name), pos + 1);
}

}  // namespace

const PyValue* PyValue::get(std::string_view key) const {
  for (const auto& [k, v] : entries) {
    if (k.kind == Kind::string && k.text == key) return &v;
  }
  return nullptr;
}

std::optional<std::string> PyValue::as_string() const {
  if (kind == Kind::string || kind == Kind::number) return text;
  return std::nullopt;
}

std::optional<bool> PyValue::as_bool() const {
  if (kind == Kind::boolean) return boolean;
  if (kind != Kind::string) return std::nullopt;
  const std::string lower = text::to_lower(text);
  if (lower == "true" || lower == "on" || lower == "1") return true;
  if (lower == "false" || lower == "off" || lower == "0") return false;
  return std::nullopt;
}

std::map<std::string, PyValue> module_assignments(std::string_view source) {
  std::map<std::string, PyValue> out;
  size_t pos = 0;
  while (pos < source.size()) {
    if (const auto assignment = assignment_at(source, pos)) {
      LiteralParser parser(source, assignment->second);
      try {
        PyValue v = parser.value();
        out[assignment->first] = std::move(v);
      } catch (const NotALiteral&) {
        // Not a literal (a call, a name, an expression): skip the statement.
      }
    }
    pos = skip_statement(source, pos);
  }
  return out;
}

}  // namespace gpuvet::python
