#include "kb/sources.hpp"

#include <algorithm>

namespace gpuvet::kb {

namespace {

constexpr size_t kShortHash = 12;  // as `git log --abbrev=12`; GitHub resolves it in URLs

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool is_word_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool is_name_char(char c) {
  return is_word_char(c) || c == '.' || c == '-';
}

// "owner/repo": one slash between two GitHub names.
bool is_owner_repo(std::string_view word) {
  const size_t slash = word.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 >= word.size()) return false;
  if (word.find('/', slash + 1) != std::string_view::npos) return false;
  for (char c : word) {
    if (c != '/' && !is_name_char(c)) return false;
  }
  return is_word_char(word.front());
}

// The word that ends just before `end` (no spaces, ';', ',' or parentheses in it).
std::string_view word_before(std::string_view text, size_t end) {
  size_t start = end;
  while (start > 0) {
    const char c = text[start - 1];
    if (c == ' ' || c == ';' || c == ',' || c == '(' || c == ')' || c == '"') break;
    --start;
  }
  return text.substr(start, end - start);
}

// Where the hash at [at, at + size) is cited as owner/repo[ path]@hash, owner/repo commit hash
// or owner/repo/path (commit hash): that citation as a GitHub URL. `from` is where the citation
// starts; npos when the hash is not cited so.
struct Citation {
  size_t from = std::string_view::npos;
  size_t to = 0;
  std::string url;
};

Citation github_citation(std::string_view text, size_t at, size_t size) {
  const std::string hash(text.substr(at, std::min(size, kShortHash)));
  Citation c;
  // owner/repo path@hash, owner/repo path @hash, owner/repo@hash
  if (at > 0 && text[at - 1] == '@') {
    size_t end = at - 1;
    if (end > 0 && text[end - 1] == ' ') --end;
    const std::string_view last = word_before(text, end);
    if (last.empty()) return c;
    const size_t last_start = end - last.size();
    if (end == at - 1 && is_owner_repo(last)) {
      c.from = last_start;
      c.url = "https://github.com/" + std::string(last) + "/tree/" + hash;
    } else if (last_start > 0 && text[last_start - 1] == ' ') {
      const std::string_view repo = word_before(text, last_start - 1);
      if (!is_owner_repo(repo)) return c;
      c.from = last_start - 1 - repo.size();
      c.url = "https://github.com/" + std::string(repo) + "/blob/" + hash + "/" + std::string(last);
    } else {
      return c;
    }
    c.to = at + size;
    return c;
  }
  // owner/repo commit hash
  constexpr std::string_view kCommit = "commit ";
  if (at >= kCommit.size() && text.substr(at - kCommit.size(), kCommit.size()) == kCommit) {
    const size_t word_end = at - kCommit.size();
    // owner/repo/path (commit hash)
    if (word_end >= 2 && text[word_end - 1] == '(' && text[word_end - 2] == ' ' &&
        at + size < text.size() && text[at + size] == ')') {
      const std::string_view path = word_before(text, word_end - 2);
      const size_t first = path.find('/');
      const size_t second = first == std::string_view::npos ? first : path.find('/', first + 1);
      if (second == std::string_view::npos || !is_owner_repo(path.substr(0, second))) return c;
      c.from = word_end - 2 - path.size();
      c.to = at + size + 1;
      c.url = "https://github.com/" + std::string(path.substr(0, second)) + "/blob/" + hash +
              std::string(path.substr(second));
      return c;
    }
    if (word_end >= 1 && text[word_end - 1] == ' ') {
      const std::string_view repo = word_before(text, word_end - 1);
      if (!is_owner_repo(repo)) return c;
      c.from = word_end - 1 - repo.size();
      c.to = at + size;
      c.url = "https://github.com/" + std::string(repo) + "/commit/" + hash;
    }
  }
  return c;
}

// Commits cited by hash become GitHub URLs; a full hash left over is shortened.
std::string rewrite_hashes(std::string_view text) {
  std::string out;
  size_t copied = 0;
  size_t i = 0;
  while (i < text.size()) {
    if (!is_hex(text[i]) || (i > 0 && is_word_char(text[i - 1]))) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && is_hex(text[end]))
      ++end;
    const size_t size = end - i;
    const bool bounded = end == text.size() || !is_word_char(text[end]);
    bool has_letter = false;
    for (size_t k = i; k < end; ++k)
      has_letter = has_letter || (text[k] >= 'a' && text[k] <= 'f');
    if (!bounded || size < 7 || size > 40 || !has_letter) {
      i = end;
      continue;
    }
    const Citation c = github_citation(text, i, size);
    if (c.from != std::string_view::npos && c.from >= copied) {
      out.append(text.substr(copied, c.from - copied));
      out += c.url;
      copied = c.to;
    } else if (size == 40) {
      out.append(text.substr(copied, i + kShortHash - copied));
      copied = end;
    }
    i = end;
  }
  out.append(text.substr(copied));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ')
    s.remove_suffix(1);
  return s;
}

// A document users cannot open, at the start of a word: notes outside the repository and the
// repository's tests. (data/….csv, another table of this knowledge base, is what `kb` answers
// from and what --kb DIR replaces: users have it.)
bool internal_at(std::string_view text, size_t i) {
  if (i > 0) {
    const char before = text[i - 1];
    if (before != ' ' && before != '(' && before != ';' && before != '"' && before != '\'') {
      return false;
    }
  }
  const std::string_view rest = text.substr(i);
  for (std::string_view prefix : {"shared/", "../shared/", "reference/", "tests/"}) {
    if (rest.starts_with(prefix)) return true;
  }
  return false;
}

bool starts_internal(std::string_view item) {
  item = trim(item);
  for (std::string_view lead : {"via ", "see ", "and "}) {
    if (item.starts_with(lead)) item.remove_prefix(lead.size());
  }
  return internal_at(item, 0);
}

std::string clean_list(std::string_view text);

// One item: its parenthesised parts cleaned too, and a "via shared/…" tail cut.
std::string clean_item(std::string_view item) {
  for (std::string_view via : {" via shared/", " via reference/"}) {
    const size_t at = item.find(via);
    if (at == std::string_view::npos) continue;
    // To the end of the item, or of the parenthesis it is in.
    const size_t close = item.find(')', at);
    std::string joined(item.substr(0, at));
    if (close != std::string_view::npos) joined += item.substr(close);
    return clean_item(joined);
  }
  std::string out;
  size_t i = 0;
  while (i < item.size()) {
    if (item[i] != '(') {
      out.push_back(item[i++]);
      continue;
    }
    int depth = 0;
    size_t end = i;
    for (; end < item.size(); ++end) {
      if (item[end] == '(') ++depth;
      if (item[end] == ')' && --depth == 0) break;
    }
    if (end >= item.size()) {  // unbalanced: kept as it is
      out.append(item.substr(i));
      break;
    }
    const std::string inner = clean_list(item.substr(i + 1, end - i - 1));
    if (inner.empty()) {
      while (!out.empty() && out.back() == ' ')
        out.pop_back();
    } else {
      out += "(" + inner + ")";
    }
    i = end + 1;
  }
  return out;
}

// Items separated by ';' (outside parentheses), the internal ones left out.
std::string clean_list(std::string_view text) {
  std::string out;
  int depth = 0;
  size_t start = 0;
  const auto take = [&](size_t end) {
    const std::string_view item = text.substr(start, end - start);
    if (starts_internal(item)) return;
    const std::string cleaned(trim(clean_item(trim(item))));
    if (cleaned.empty()) return;
    out += (out.empty() ? "" : "; ") + cleaned;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && depth > 0) --depth;
    if (text[i] == ';' && depth == 0) {
      take(i);
      start = i + 1;
    }
  }
  take(text.size());
  return out;
}

bool has_full_hash(std::string_view text) {
  size_t run = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && is_hex(text[i])) {
      ++run;
      continue;
    }
    const bool bounded_before = run == 0 || i - run == 0 || !is_word_char(text[i - run - 1]);
    const bool bounded_after = i == text.size() || !is_word_char(text[i]);
    if (run == 40 && bounded_before && bounded_after) return true;
    run = 0;
  }
  return false;
}

}  // namespace

bool cites_internal(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (internal_at(text, i)) return true;
  }
  return has_full_hash(text);
}

std::string public_text(std::string_view text) {
  if (!cites_internal(text) && text.find('@') == std::string_view::npos &&
      text.find("commit ") == std::string_view::npos) {
    return std::string(text);
  }
  return clean_list(rewrite_hashes(text));
}

}  // namespace gpuvet::kb
