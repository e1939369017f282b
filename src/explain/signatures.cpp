#include "explain/signatures.hpp"

#include <fmt/format.h>
#include <re2/re2.h>
#include <re2/set.h>

#include <cstdlib>

#include "core/text.hpp"
#include "explain/literal_filter.hpp"

namespace gpuvet::explain {

namespace {

// Logs are bytes of any encoding: Latin-1 mode takes every byte as a character, so invalid UTF-8
// can never fail a match, and the ASCII patterns match the same text.
RE2::Options options() {
  RE2::Options o;
  o.set_encoding(RE2::Options::EncodingLatin1);
  o.set_log_errors(false);
  o.set_max_mem(64 << 20);
  return o;
}

}  // namespace

std::string to_grep_pattern(std::string_view p) {
  std::string out;
  bool in_class = false;  // inside [...]: \d is 0-9 there
  for (size_t i = 0; i < p.size(); ++i) {
    const std::string_view rest = p.substr(i);
    if (!in_class && rest.starts_with("(?P<") && p.find('>', i) != std::string_view::npos) {
      out += '(';
      i = p.find('>', i);
    } else if (!in_class && (rest.starts_with("(?:") || rest.starts_with("(?i:"))) {
      out += '(';
      i += rest[2] == ':' ? 2 : 3;
    } else if (!in_class && rest.starts_with("(?i)")) {
      i += 3;
    } else if (rest.starts_with("\\d")) {
      out += in_class ? "0-9" : "[0-9]";
      ++i;
    } else if (p[i] == '\\' && i + 1 < p.size()) {
      out += rest.substr(0, 2);
      ++i;
    } else {
      if (p[i] == '[') in_class = true;
      if (p[i] == ']') in_class = false;
      out += p[i];
    }
  }
  return out;
}

struct Signatures::Engine {
  std::vector<std::unique_ptr<RE2>> compiled;
  std::unique_ptr<RE2::Set> set;
  std::unique_ptr<LiteralFilter> literals;
};

Signatures::Signatures() : engine_(std::make_unique<Engine>()) {}
Signatures::Signatures(Signatures&&) noexcept = default;
Signatures& Signatures::operator=(Signatures&&) noexcept = default;
Signatures::~Signatures() = default;

Result<Signatures> Signatures::load(const kb::Kb& kb) {
  auto table = kb.table("explain_signatures");
  if (!table) return table.error();
  const kb::Table& t = **table;
  Signatures s;
  s.engine_->set = std::make_unique<RE2::Set>(options(), RE2::UNANCHORED);
  for (size_t row = 0; row < t.size(); ++row) {
    Signature sig;
    sig.id = t.cell(row, "id");
    sig.cause = t.cell(row, "cause");
    sig.symptom = t.cell(row, "kind") == "symptom";
    sig.fact = t.cell(row, "kind") == "fact";
    sig.weight = std::strtod(t.cell(row, "weight").c_str(), nullptr);
    sig.pattern = t.cell(row, "pattern");
    for (const auto& cause : text::split(t.cell(row, "also"), '|')) {
      if (!cause.empty()) sig.also.push_back(cause);
    }
    for (const auto& literal : text::split(t.cell(row, "literals"), '|')) {
      if (!literal.empty()) sig.literals.push_back(literal);
    }
    sig.example = t.cell(row, "example");
    sig.near_miss = t.cell(row, "near_miss");
    sig.source = t.cell(row, "source");
    auto re = std::make_unique<RE2>(sig.pattern, options());
    if (!re->ok()) {
      return make_error(
          fmt::format("{}:{}: pattern of {}: {}", t.name(), t.line_of(row), sig.id, re->error()));
    }
    std::string error;
    if (s.engine_->set->Add(sig.pattern, &error) < 0) {
      return make_error(fmt::format("{}:{}: {}", t.name(), t.line_of(row), error));
    }
    s.signatures_.push_back(std::move(sig));
    s.engine_->compiled.push_back(std::move(re));
  }
  if (!s.engine_->set->Compile()) {
    return make_error("explain_signatures: the patterns do not compile");
  }
  // The prefilter only when every signature names its literals; otherwise every text goes to RE2.
  std::vector<std::string> all_literals;
  bool complete = true;
  for (const auto& sig : s.signatures_) {
    complete = complete && !sig.literals.empty();
    all_literals.insert(all_literals.end(), sig.literals.begin(), sig.literals.end());
  }
  if (complete) s.engine_->literals = std::make_unique<LiteralFilter>(all_literals);
  return s;
}

size_t Signatures::first_candidate(std::string_view text) const {
  if (engine_->literals && engine_->literals->filters()) return engine_->literals->find(text);
  return engine_->set->Match(text, nullptr) ? 0 : std::string_view::npos;
}

std::vector<SignatureHit> Signatures::match(std::string_view line) const {
  std::vector<SignatureHit> hits;
  std::vector<int> which;
  if (!engine_->set->Match(line, &which)) return hits;
  for (const int index : which) {
    const RE2& re = *engine_->compiled[static_cast<size_t>(index)];
    const int groups = re.NumberOfCapturingGroups();
    std::vector<re2::StringPiece> values(static_cast<size_t>(groups) + 1);
    if (!re.Match(line, 0, line.size(), RE2::UNANCHORED, values.data(),
                  static_cast<int>(values.size()))) {
      continue;
    }
    SignatureHit hit;
    hit.signature = static_cast<size_t>(index);
    for (const auto& [name, group] : re.NamedCapturingGroups()) {
      const auto& value = values[static_cast<size_t>(group)];
      if (value.data() != nullptr) hit.captures[name] = std::string(value.data(), value.size());
    }
    hits.push_back(std::move(hit));
  }
  return hits;
}

}  // namespace gpuvet::explain
