#pragma once
// Reported cases like this log: when the signatures say little, the causes of the real cases in
// the explain corpus (tests/explain_corpus, its dev split, embedded in the binary) whose words are
// nearest the log's error lines. A nearest-neighbour vote over TF-IDF vectors of words and word
// pairs: the long tail of phrasings no signature was written for ("CUDA initialize error" from a
// miner) often shares its words with a case already resolved.
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.hpp"

namespace gpuvet::explain {

// Neighbours that vote: chosen on the corpus' dev split, each case scored without the cases of
// its own thread (docs/explain.md).
inline constexpr size_t kSimilarNeighbours = 15;
// Causes the vote may add: enough to fill the top three.
inline constexpr size_t kMaxSimilarCauses = 3;
// Reported cases shown per cause.
inline constexpr size_t kMaxSimilarReports = 3;
// Error lines kept for the vote: a pasted excerpt is far shorter; a big log's first ones.
inline constexpr size_t kMaxErrorTextBytes = 64 * 1024;
// A log with no error line at all is still compared whole when it is this short (a pasted
// excerpt: "torch.cuda.is_available() False"), but only a close neighbour counts then.
inline constexpr size_t kShortLogBytes = 4 * 1024;
inline constexpr double kShortLogMinSimilarity = 0.2;

// One reported case: the thread and what resolved it.
struct SimilarReport {
  std::string id;  // the corpus case, "a001"
  std::string url;
  std::string fix;
  double similarity = 0;  // cosine, 0..1
};

// A cause the nearest cases vote for: its share of the vote and its nearest cases.
struct SimilarVote {
  std::string cause;
  double share = 0;
  size_t votes = 0;  // neighbours resolved as it
  std::vector<SimilarReport> reports;
};

// The words a log is compared by: lower-case ASCII words that start with a letter or '_' and may
// hold digits, '_', '+', '.' and '-' (cudart64_110.dll, sm_86, libcudnn_ops.so.9), each Chinese
// character on its own, and every pair of neighbours among them. Bare numbers, hex ids and
// stop words are left out: versions and addresses differ between two reports of one cause.
std::vector<std::string> similarity_terms(std::string_view text);

// A line that reports something wrong: an error, a failure, something missing or unsupported,
// in English or Chinese. Only those lines vote, so a healthy training log resembles nothing.
bool is_error_line(std::string_view line);

class SimilarCases {
 public:
  // From the corpus as JSON lines (id, log, primary, url, fix, split): the cases of `split` only.
  // A malformed line is an error naming it.
  static Result<SimilarCases> from_jsonl(std::string_view text, std::string_view split);
  // The corpus embedded in this binary (its dev split), built on first use.
  static const SimilarCases& embedded();

  // Causes ranked by their share of the nearest cases' vote (similarity squared), each with its
  // nearest reports; `exclude_url` leaves one thread's cases out (the corpus test measures each
  // dev case so). Empty when nothing is as near as `min_similarity`.
  std::vector<SimilarVote> vote(std::string_view text, double min_similarity = 0,
                                std::string_view exclude_url = {}) const;
  size_t size() const { return cases_.size(); }

 private:
  struct Case {
    std::string cause;
    SimilarReport report;
  };
  struct Posting {
    size_t case_index;
    double weight;
  };
  struct Term {
    double idf = 0;
    std::vector<Posting> postings;  // the cases that hold it, with its normalised weight there
  };
  std::vector<Case> cases_;
  // Hashed: the index holds some 20 000 terms (words and pairs) and is built once per run.
  std::unordered_map<std::string, Term> terms_;
};

}  // namespace gpuvet::explain
