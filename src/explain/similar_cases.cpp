#include "explain/similar_cases.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "core/text.hpp"
#include "explain/literal_filter.hpp"
#include "explain/pasted_forms.hpp"
#include "kb/csv.hpp"
#include "kb/embedded.hpp"

namespace gpuvet::explain {

namespace {

constexpr std::string_view kEmbeddedCorpus = "explain_corpus.jsonl";
constexpr std::string_view kSignatureTable = "explain_signatures.csv";

constexpr std::array<std::string_view, 22> kStopWords = {
    "the", "an", "of",   "to",   "in",   "is",  "for", "and", "or", "on",  "at",
    "be",  "it", "this", "that", "with", "not", "was", "by",  "as", "are", "from"};

char lower_ascii(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
bool starts_word(char c) {
  return (c >= 'a' && c <= 'z') || c == '_';
}
bool ends_word(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool inside_word(char c) {
  return ends_word(c) || c == '_' || c == '+' || c == '.' || c == '-';
}

bool is_hex_id(std::string_view word) {
  return word.size() >= 6 && std::all_of(word.begin(), word.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool is_stop_word(std::string_view word) {
  return std::find(kStopWords.begin(), kStopWords.end(), word) != kStopWords.end();
}

// A CJK unified ideograph (U+4E00..U+9FFF) encoded in UTF-8 at `pos`: three bytes, or 0.
size_t cjk_length(std::string_view text, size_t pos) {
  if (pos + 3 > text.size()) return 0;
  const auto b0 = static_cast<unsigned char>(text[pos]);
  const auto b1 = static_cast<unsigned char>(text[pos + 1]);
  const auto b2 = static_cast<unsigned char>(text[pos + 2]);
  if (b0 < 0xE4 || b0 > 0xE9 || (b1 & 0xC0) != 0x80 || (b2 & 0xC0) != 0x80) return 0;
  const unsigned code = ((b0 & 0x0Fu) << 12) | ((b1 & 0x3Fu) << 6) | (b2 & 0x3Fu);
  return code >= 0x4E00 && code <= 0x9FFF ? 3 : 0;
}

std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words;
  size_t pos = 0;
  while (pos < text.size()) {
    if (const size_t cjk = cjk_length(text, pos)) {
      words.emplace_back(text.substr(pos, cjk));
      pos += cjk;
      continue;
    }
    if (!starts_word(lower_ascii(text[pos]))) {
      ++pos;
      continue;
    }
    size_t end = pos + 1;
    while (end < text.size() && inside_word(lower_ascii(text[end])))
      ++end;
    while (end > pos + 1 && !ends_word(lower_ascii(text[end - 1])))
      --end;
    if (end - pos < 2) {  // one letter, or '_' and punctuation
      ++pos;
      continue;
    }
    std::string word(text.substr(pos, end - pos));
    std::transform(word.begin(), word.end(), word.begin(), lower_ascii);
    if (!is_stop_word(word) && !is_hex_id(word)) words.push_back(std::move(word));
    pos = end;
  }
  return words;
}

// A library's name without its platform's spelling and version: "libcublasLt.so.12" and
// "cublasLt64_12.dll" both hold "cublaslt", so a Linux case resembles a Windows log of it.
void add_stems(const std::string& word, std::vector<std::string>& stems) {
  if (word.find_first_of("._-+0123456789") == std::string::npos) return;
  size_t pos = 0;
  while (pos < word.size()) {
    size_t end = word.find_first_of("._-+", pos);
    if (end == std::string::npos) end = word.size();
    size_t letters = pos;
    while (letters < end && word[letters] >= 'a' && word[letters] <= 'z')
      ++letters;
    std::string stem = word.substr(pos, letters - pos);
    if (stem.size() >= 6 && stem.starts_with("lib")) stem.erase(0, 3);
    if (stem.size() >= 3 && stem != word && !is_stop_word(stem)) stems.push_back(stem);
    pos = end + 1;
  }
}

// Each distinct term with 1 + ln(its count).
std::vector<std::pair<std::string, double>> term_frequencies(std::string_view text) {
  std::vector<std::string> terms = similarity_terms(text);
  std::sort(terms.begin(), terms.end());
  std::vector<std::pair<std::string, double>> tf;
  for (size_t i = 0; i < terms.size();) {
    size_t j = i + 1;
    while (j < terms.size() && terms[j] == terms[i])
      ++j;
    tf.emplace_back(std::move(terms[i]), 1.0 + std::log(static_cast<double>(j - i)));
    i = j;
  }
  return tf;
}

std::string field(const nlohmann::json& row, const char* key) {
  const auto it = row.find(key);
  return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::vector<std::string> similarity_terms(std::string_view text) {
  std::vector<std::string> terms = words_of(text);
  const size_t words = terms.size();
  for (size_t i = 0; i + 1 < words; ++i)
    terms.push_back(terms[i] + " " + terms[i + 1]);
  std::vector<std::string> stems;
  for (size_t i = 0; i < words; ++i)
    add_stems(terms[i], stems);
  terms.insert(terms.end(), stems.begin(), stems.end());
  return terms;
}

namespace {

// names_gpu_stack on a line already in lower case.
bool names_gpu_stack_lower(std::string_view lower) {
  static constexpr std::string_view kGpuStackWords[] = {
      "cuda", "cudnn", "cublas", "nvrtc", "nvcc", "ptxas", "nvidia", "gpu", "driver", "device",
      "nccl", "tensorrt", "nvinfer", "sm_", "capabilit", ".dll", ".so", "cpu", "fp16", "bf16",
      // 显卡 (graphics card), 显存 (graphics memory).
      "\xE6\x98\xBE\xE5\x8D\xA1", "\xE6\x98\xBE\xE5\xAD\x98"};
  return std::any_of(std::begin(kGpuStackWords), std::end(kGpuStackWords),
                     [&](std::string_view word) { return lower.find(word) != std::string::npos; });
}

}  // namespace

bool names_gpu_stack(std::string_view line) {
  std::string lower(line);
  std::transform(lower.begin(), lower.end(), lower.begin(), lower_ascii);
  return names_gpu_stack_lower(lower);
}

bool is_tensorflow_info(std::string_view line) {
  // "2023-05-10 10:12:01.123456: I tensorflow/core/...": TensorFlow's and XLA's INFO severity.
  for (const std::string_view source : {" I tensorflow/", " I external/"}) {
    if (line.find(source) != std::string_view::npos) return true;
  }
  return false;
}

namespace {

// What reports a problem in the words the corpus' logs use; Chinese as its threads write it.
const LiteralFilter& error_markers() {
  static const LiteralFilter markers(
      {"error", "fail", "cannot", "can't", "can\xE2\x80\x99t", "couldn't", "couldn\xE2\x80\x99t",
       "could not", "unable", "not found", "no such", "fatal", "invalid", "denied", "not available",
       "not supported", "unsupported", "not compatible", "incompatible", "mismatch", "missing",
       "no cuda", "no gpu", "no device", "not enough", "out of memory", "abort", "crash",
       "segmentation", "killed", "timed out", "timeout", "refused", "not detected",
       "not recognized", "unknown", "undefined",
       // 错误 (error), 失败 (failed), 无法 (cannot), 找不到 and 未找到 (not found), 不支持 (not
       // supported), 没有 (there is no), 异常 (exception), 报错 (reports an error).
       "\xE9\x94\x99\xE8\xAF\xAF", "\xE5\xA4\xB1\xE8\xB4\xA5", "\xE6\x97\xA0\xE6\xB3\x95",
       "\xE6\x89\xBE\xE4\xB8\x8D\xE5\x88\xB0", "\xE6\x9C\xAA\xE6\x89\xBE\xE5\x88\xB0",
       "\xE4\xB8\x8D\xE6\x94\xAF\xE6\x8C\x81", "\xE6\xB2\xA1\xE6\x9C\x89",
       "\xE5\xBC\x82\xE5\xB8\xB8", "\xE6\x8A\xA5\xE9\x94\x99"});
  return markers;
}

// The words that make a line without a marker an error line after a closer look.
const LiteralFilter& exception_or_warning() {
  static const LiteralFilter words({"exception", "warning"});
  return words;
}

template <typename OnLine>
void for_each_line(std::string_view text, OnLine&& on_line) {
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    on_line(text.substr(pos, end - pos));
    pos = end + 1;
  }
}

// The literals of data/explain_signatures.csv's log.informational_only rows, read once from the
// embedded copy: a line that holds one only informs, whatever else it says.
const LiteralFilter& harmless_literals() {
  static const LiteralFilter filter = [] {
    std::vector<std::string> literals;
    for (const auto& file : kb::embedded_files()) {
      if (file.path != kSignatureTable) continue;
      // The table is checked by its own tests; a broken copy only leaves these lines in.
      auto table = kb::parse_csv(file.bytes, "explain_signatures");
      if (!table) break;
      for (size_t row = 0; row < table->size(); ++row) {
        if (table->cell(row, "cause") != kInformationalCause) continue;
        // An empty literal would mark every line harmless.
        for (auto& literal : text::split(table->cell(row, "literals"), '|'))
          if (!literal.empty()) literals.push_back(text::to_lower(literal));
      }
    }
    return LiteralFilter(literals);
  }();
  return filter;
}

bool reads_like_an_error(std::string_view line) {
  // One pass of the literal filter, ASCII case ignored: explain asks this of every line it reads
  // until it has kept 64 KiB of error lines, which on a long healthy log is every line.
  const bool marked = error_markers().any_in(line);
  // TensorFlow's INFO lines report no fault unless they name the GPU stack: TF 2.x prints
  // "oneDNN custom operations are on ... round-off errors" on every start.
  if (is_tensorflow_info(line)) return marked && names_gpu_stack(line);
  if (marked) return true;
  if (!exception_or_warning().any_in(line)) return false;
  std::string lower(line);
  std::transform(lower.begin(), lower.end(), lower.begin(), lower_ascii);
  const size_t exception = lower.find("exception");
  const bool ignored_exception =
      exception != std::string::npos && lower.compare(exception, 17, "exception ignored") == 0;
  if (exception != std::string::npos && !ignored_exception) return true;
  if (!ignored_exception && lower.find("warning") == std::string::npos) return false;
  // A warning, or Python's "Exception ignored in" at exit, is a problem of the GPU stack only
  // when it names a part of it: a program's output is full of deprecation and dependency
  // warnings that would otherwise drown the error in the comparison with reported cases.
  return names_gpu_stack_lower(lower);
}

}  // namespace

bool is_harmless_line(std::string_view line) {
  const LiteralFilter& harmless = harmless_literals();
  return harmless.filters() && harmless.any_in(line);
}

// Only a line that reads like an error is looked up among the harmless ones: the lookup costs a
// second scan, which a long healthy log should not pay on every line.
bool is_error_line(std::string_view line) {
  return reads_like_an_error(line) && !is_harmless_line(line);
}

std::string similarity_text(std::string_view log) {
  // Each line's message, as explain reads it (pasted_forms.hpp).
  std::string errors;
  for_each_line(log, [&](std::string_view written) {
    const std::string line = message_of(written);
    if (errors.size() + line.size() < kMaxErrorTextBytes && is_error_line(line))
      errors.append(line).push_back('\n');
  });
  if (!errors.empty() || log.size() > kShortLogBytes) return errors;
  // A short log with no error line is compared whole, but for the lines that report nothing.
  std::string kept;
  for_each_line(log, [&](std::string_view written) {
    const std::string line = message_of(written);
    if (!is_harmless_line(line)) kept.append(line).push_back('\n');
  });
  return kept;
}

size_t fold_of(std::string_view url, size_t count) {
  // FNV-1a, 64 bits: the same fold on every platform and run.
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : url) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return count ? static_cast<size_t>(hash % count) : 0;
}

Result<SimilarCases> SimilarCases::from_jsonl(std::string_view text, std::string_view split,
                                              HeldOutFold leave_out) {
  SimilarCases out;
  std::vector<std::vector<std::pair<std::string, double>>> error_terms;
  size_t line_number = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    nlohmann::json row;
    try {
      row = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      return make_error(fmt::format("explain corpus line {}: {}", line_number, e.what()));
    }
    if (!row.is_object()) {
      return make_error(fmt::format("explain corpus line {}: not an object", line_number));
    }
    const std::string cause = field(row, "primary");
    // A cause the taxonomy does not have yet (a leading '+') is never an answer; nor is a line
    // that only informs by resemblance: only its own message, recognised, says so.
    if (field(row, "split") != split || cause.empty() || cause.starts_with("+") ||
        cause == kInformationalCause) {
      continue;
    }
    const std::string url = field(row, "url");
    if (leave_out.count && fold_of(url, leave_out.count) == leave_out.index) continue;
    auto known = std::find(out.causes_.begin(), out.causes_.end(), cause);
    if (known == out.causes_.end()) known = out.causes_.insert(out.causes_.end(), cause);
    const auto cause_index = static_cast<size_t>(known - out.causes_.begin());
    out.cases_.push_back({cause_index, {field(row, "id"), url, field(row, "fix"), 0.0}});
    const size_t index = out.cases_.size() - 1;
    const std::string log = field(row, "log");
    for (auto& [term, weight] : term_frequencies(log))
      out.terms_[std::move(term)].postings.push_back({index, weight});
    error_terms.push_back(term_frequencies(similarity_text(log)));
  }
  // A term's weight is its frequency times its rarity: idf from the cases that hold it.
  const double n = static_cast<double>(out.cases_.size());
  std::vector<double> norms(out.cases_.size(), 0.0);
  for (auto& [term, t] : out.terms_) {
    t.idf = std::log((n + 1) / (static_cast<double>(t.postings.size()) + 0.5));
    for (auto& p : t.postings) {
      p.weight *= t.idf;
      norms[p.case_index] += p.weight * p.weight;
    }
  }
  for (auto& [term, t] : out.terms_)
    for (auto& p : t.postings)
      p.weight /= std::sqrt(norms[p.case_index]);
  // The classifier learns from each case's error lines, weighed as a query is (the index's idf).
  std::vector<SparseVector> examples(out.cases_.size());
  for (size_t index = 0; index < examples.size(); ++index) {
    double norm = 0;
    for (const auto& [term, tf] : error_terms[index]) {
      const auto it = out.terms_.find(term);
      if (it == out.terms_.end()) continue;  // a pair across two kept lines
      examples[index].emplace_back(&it->second, tf * it->second.idf);
      norm += examples[index].back().second * examples[index].back().second;
    }
    for (auto& [term, weight] : examples[index])
      weight /= std::sqrt(norm);
  }
  out.learn_causes(examples);
  return out;
}

void SimilarCases::learn_causes(const std::vector<SparseVector>& examples) {
  // The features: terms some example holds, numbered; the examples as compressed rows (the
  // passes below are the hot loop).
  std::vector<Term*> features;
  std::vector<std::uint32_t> feature;
  std::vector<double> value;
  std::vector<size_t> row_start = {0};
  std::vector<size_t> row_cause;
  {
    std::unordered_map<const Term*, std::uint32_t> number;
    for (size_t i = 0; i < examples.size(); ++i) {
      if (examples[i].empty()) continue;
      for (const auto& [term, weight] : examples[i]) {
        const auto [it, added] = number.emplace(term, static_cast<std::uint32_t>(features.size()));
        if (added) features.push_back(term);
        feature.push_back(it->second);
        value.push_back(weight);
      }
      row_start.push_back(feature.size());
      row_cause.push_back(cases_[i].cause_index);
    }
  }
  for (Term* term : features)
    term->cause_weights.assign(causes_.size(), 0.0f);
  cause_bias_.assign(causes_.size(), 0.0);
  // Dual coordinate descent for the L2-loss SVM (Hsieh et al., ICML 2008; liblinear's solver):
  // each step is exact, so a few passes over 1 500 short examples suffice.
  const double diagonal = 0.5 / kCauseModelCost;
  constexpr double kTolerance = 0.1;
  constexpr size_t kMaxPasses = 200;
  const size_t rows = row_cause.size();
  std::vector<size_t> order(rows);
  for (size_t cause = 0; cause < causes_.size(); ++cause) {
    std::vector<double> w(features.size(), 0.0);
    double bias = 0;  // the weight of a constant feature 1
    std::vector<double> alpha(rows, 0.0);
    for (size_t i = 0; i < rows; ++i)
      order[i] = i;
    std::mt19937 shuffle(static_cast<std::mt19937::result_type>(cause + 1));
    for (size_t pass = 0; pass < kMaxPasses; ++pass) {
      // Fisher-Yates with the generator's raw output: the same order on every platform.
      for (size_t i = rows; i > 1; --i)
        std::swap(order[i - 1], order[shuffle() % i]);
      double highest = -HUGE_VAL, lowest = HUGE_VAL;
      for (const size_t i : order) {
        const double y = row_cause[i] == cause ? 1.0 : -1.0;
        const std::uint32_t* f = feature.data() + row_start[i];
        const double* x = value.data() + row_start[i];
        const size_t n = row_start[i + 1] - row_start[i];
        double margin = bias;
        for (size_t k = 0; k < n; ++k)
          margin += w[f[k]] * x[k];
        const double gradient = y * margin - 1 + diagonal * alpha[i];
        const double projected = alpha[i] == 0 ? std::min(gradient, 0.0) : gradient;
        highest = std::max(highest, projected);
        lowest = std::min(lowest, projected);
        if (std::fabs(projected) < 1e-12) continue;
        const double before = alpha[i];
        // |x|^2 is 1 (normalised) plus the bias feature's 1.
        alpha[i] = std::max(alpha[i] - gradient / (2.0 + diagonal), 0.0);
        const double step = (alpha[i] - before) * y;
        for (size_t k = 0; k < n; ++k)
          w[f[k]] += step * x[k];
        bias += step;
      }
      if (highest - lowest <= kTolerance) break;
    }
    for (size_t k = 0; k < features.size(); ++k)
      features[k]->cause_weights[cause] = static_cast<float>(w[k]);
    cause_bias_[cause] = bias;
  }
}

std::vector<double> SimilarCases::cause_scores(
    const std::vector<std::pair<const Term*, double>>& query) const {
  std::vector<double> scores = cause_bias_;
  for (const auto& [term, weight] : query) {
    if (term->cause_weights.empty()) continue;
    for (size_t cause = 0; cause < scores.size(); ++cause)
      scores[cause] += weight * term->cause_weights[cause];
  }
  return scores;
}

const SimilarCases& SimilarCases::embedded() {
  static const SimilarCases cases = [] {
    for (const auto& file : kb::embedded_files()) {
      if (file.path != kEmbeddedCorpus) continue;
      // The corpus is checked by its own test; a broken copy leaves explain its signatures.
      auto loaded = from_jsonl(file.bytes, "dev");
      if (loaded) return std::move(*loaded);
    }
    return SimilarCases();
  }();
  return cases;
}

std::vector<SimilarVote> SimilarCases::vote(std::string_view text, double min_similarity,
                                            std::string_view exclude_url) const {
  const auto tf = term_frequencies(text);
  const double unseen_idf = std::log(static_cast<double>(cases_.size()) + 1);
  double norm = 0;
  for (const auto& [term, weight] : tf) {
    const auto it = terms_.find(term);
    const double w = weight * (it == terms_.end() ? unseen_idf : it->second.idf);
    norm += w * w;
  }
  if (norm == 0) return {};
  norm = std::sqrt(norm);
  std::vector<double> similarity(cases_.size(), 0.0);
  std::vector<std::pair<const Term*, double>> query;
  for (const auto& [term, weight] : tf) {
    const auto it = terms_.find(term);
    if (it == terms_.end()) continue;
    const double w = weight * it->second.idf / norm;
    query.emplace_back(&it->second, w);
    for (const auto& p : it->second.postings)
      similarity[p.case_index] += w * p.weight;
  }
  // Every case that shares a word, nearest first.
  std::vector<std::pair<double, size_t>> nearest;
  for (size_t index = 0; index < similarity.size(); ++index) {
    if (similarity[index] <= 0) continue;
    if (!exclude_url.empty() && cases_[index].report.url == exclude_url) continue;
    nearest.emplace_back(similarity[index], index);
  }
  std::sort(nearest.begin(), nearest.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (nearest.empty() || nearest.front().first < min_similarity) return {};

  // The classifier learnt from vectors of known terms only, normalised so: words no case holds
  // must not shrink the rest (the bias would then decide).
  double known = 0;
  for (const auto& [term, weight] : query)
    known += weight * weight;
  for (auto& [term, weight] : query)
    weight /= std::sqrt(known);
  const std::vector<double> scores = cause_scores(query);
  const double top = *std::max_element(scores.begin(), scores.end());
  double total = 0;
  for (const double score : scores)
    total += std::exp(kCauseModelSharpness * (score - top));
  std::vector<SimilarVote> votes;
  std::vector<size_t> vote_of(causes_.size(), SIZE_MAX);
  for (size_t rank = 0; rank < nearest.size(); ++rank) {
    const auto& [score, index] = nearest[rank];
    const Case& c = cases_[index];
    if (vote_of[c.cause_index] == SIZE_MAX) {
      vote_of[c.cause_index] = votes.size();
      const double share = std::exp(kCauseModelSharpness * (scores[c.cause_index] - top)) / total;
      votes.push_back(SimilarVote{causes_[c.cause_index], share, 0, {}});
    }
    SimilarVote& v = votes[vote_of[c.cause_index]];
    if (rank < kSimilarNeighbours) ++v.votes;
    if (v.reports.size() < kMaxSimilarReports) {
      v.reports.push_back(c.report);
      v.reports.back().similarity = score;
    }
  }
  std::stable_sort(votes.begin(), votes.end(),
                   [](const SimilarVote& a, const SimilarVote& b) { return a.share > b.share; });
  return votes;
}

}  // namespace gpuvet::explain
