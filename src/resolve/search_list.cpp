#include "resolve/search_list.hpp"

#include <algorithm>
#include <array>

namespace gpuvet::resolve {

namespace {

enum class Token { origin, lib, platform };

struct TokenName {
  Token token;
  std::string_view name;
};

constexpr std::array<TokenName, 3> kTokens = {
    {{Token::origin, "ORIGIN"}, {Token::lib, "LIB"}, {Token::platform, "PLATFORM"}}};

bool is_identifier_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// Length of the token `name` at `input` (just after the '$'), braces included; 0 when the
// input does not hold exactly that token (gABI rule: the longest identifier is the name).
size_t token_length(std::string_view input, std::string_view name) {
  const bool curly = input.starts_with('{');
  const std::string_view rest = curly ? input.substr(1) : input;
  if (!rest.starts_with(name)) return 0;
  const std::string_view after = rest.substr(name.size());
  if (curly) return after.starts_with('}') ? name.size() + 2 : 0;
  if (!after.empty() && is_identifier_char(after.front())) return 0;
  return name.size();
}

struct Match {
  Token token;
  size_t length;
};

std::optional<Match> token_at(std::string_view input) {
  for (const auto& [token, name] : kTokens) {
    if (const size_t length = token_length(input, name)) return Match{token, length};
  }
  return std::nullopt;
}

std::optional<std::string> value_of(Token token, const TokenValues& values) {
  switch (token) {
    case Token::origin:
      return values.origin;
    case Token::lib:
      return values.lib;
    case Token::platform:
      return values.platform;
  }
  return std::nullopt;
}

std::string without_trailing_slashes(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back();
  return dir;
}

}  // namespace

std::optional<std::string> expand_tokens(std::string_view entry, const TokenValues& values) {
  std::string out;
  size_t i = 0;
  while (i < entry.size()) {
    if (entry[i] != '$') {
      out += entry[i++];
      continue;
    }
    const auto match = token_at(entry.substr(i + 1));
    if (!match) {
      out += entry[i++];  // not a token we know: the '$' stays
      continue;
    }
    const auto value = value_of(match->token, values);
    if (!value) return std::nullopt;
    out += *value;
    i += 1 + match->length;
  }
  return out;
}

bool has_tokens(std::string_view entry) {
  for (size_t i = entry.find('$'); i != std::string_view::npos; i = entry.find('$', i + 1)) {
    if (token_at(entry.substr(i + 1))) return true;
  }
  return false;
}

std::vector<std::string> split_list(std::string_view list, std::string_view separators) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t end = list.find_first_of(separators, start);
    parts.emplace_back(list.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

std::vector<SearchEntry> search_entries(const std::vector<std::string>& entries,
                                        const TokenValues& values) {
  std::vector<SearchEntry> out;
  const auto known = [&out](const std::string& dir) {
    return std::any_of(out.begin(), out.end(),
                       [&dir](const SearchEntry& e) { return e.dir && *e.dir == dir; });
  };
  for (const auto& entry : entries) {
    if (entry.empty()) {
      if (!known("")) out.push_back({entry, std::string()});
      continue;
    }
    auto expanded = expand_tokens(entry, values);
    if (!expanded) {
      out.push_back({entry, std::nullopt});
      continue;
    }
    if (expanded->empty()) continue;
    std::string dir = without_trailing_slashes(std::move(*expanded));
    if (!known(dir)) out.push_back({entry, std::move(dir)});
  }
  return out;
}

}  // namespace gpuvet::resolve
