#pragma once
// Reported cases like this log: when the signatures say little, the causes of the real cases in
// the explain corpus (tests/explain_corpus, its dev split, embedded in the binary) whose words are
// nearest the log's error lines. TF-IDF vectors of words and word pairs: the long tail of
// phrasings no signature was written for ("CUDA initialize error" from a miner) often shares its
// words with a case already resolved. A linear classifier learnt from the cases' error lines
// ranks the causes (it weighs which words tell causes apart, where a neighbour vote counts every
// shared word); the nearest cases of each cause are its reports.
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.hpp"

namespace gpuvet::explain {

// The nearest cases counted for a cause's "resembles N of the reported cases nearest".
inline constexpr size_t kSimilarNeighbours = 15;
// Causes the reported cases may add: enough to fill the top three.
inline constexpr size_t kMaxSimilarCauses = 3;
// Reported cases shown per cause.
inline constexpr size_t kMaxSimilarReports = 3;
// Error lines kept for the vote: a pasted excerpt is far shorter; a big log's first ones.
inline constexpr size_t kMaxErrorTextBytes = 64 * 1024;
// A log with no error line at all is still compared whole when it is this short (a pasted
// excerpt: "torch.cuda.is_available() False"), but only a close neighbour counts then: a
// healthy log shares a word or two (0.10 for "hello world"), short real pastes 0.15 and more.
inline constexpr size_t kShortLogBytes = 4 * 1024;
inline constexpr double kShortLogMinSimilarity = 0.15;
// The classifier: one linear SVM per cause against the rest (L2-regularised, squared hinge loss,
// solved in the dual by coordinate descent), its cost chosen on the dev split by cross-validation
// by thread (docs/explain.md).
inline constexpr double kCauseModelCost = 0.3;
// Its scores become shares by a softmax this sharp: on the dev split the mean share of the first
// cause then about matches how often the first cause is right (two in three).
inline constexpr double kCauseModelSharpness = 6.0;

// One reported case: the thread and what resolved it.
struct SimilarReport {
  std::string id;  // the corpus case, "a001"
  std::string url;
  std::string fix;
  double similarity = 0;  // cosine, 0..1
};

// A cause the reported cases point to: its share of the classifier's belief, how many of the
// nearest cases were resolved as it, and its nearest cases.
struct SimilarVote {
  std::string cause;
  double share = 0;
  size_t votes = 0;  // of the kSimilarNeighbours nearest, those resolved as it
  std::vector<SimilarReport> reports;
};

// A part of the corpus left out of what is learnt: the dev cases whose thread falls in fold
// `index` of `count` (by a hash of the URL), to measure the rest on them.
struct HeldOutFold {
  size_t count = 0;
  size_t index = 0;
};
size_t fold_of(std::string_view url, size_t count);

// The words a log is compared by: lower-case ASCII words that start with a letter or '_' and may
// hold digits, '_', '+', '.' and '-' (cudart64_110.dll, sm_86, libcudnn_ops.so.9), each Chinese
// character on its own, and every pair of neighbours among them. Bare numbers, hex ids and
// stop words are left out: versions and addresses differ between two reports of one cause.
std::vector<std::string> similarity_terms(std::string_view text);

// A line that reports something wrong: an error, a failure, something missing or unsupported,
// in English or Chinese. Only those lines vote, so a healthy training log resembles nothing.
bool is_error_line(std::string_view line);
// The cause of a line that only informs: a healthy start's note that reads like an error
// (TensorFlow's "Unable to register cuDNN factory", PaddlePaddle's device note). Its signatures'
// literals mark such lines, so they must name the message, not a word of it.
inline constexpr std::string_view kInformationalCause = "log.informational_only";
// A line of one of those messages: it reports nothing wrong.
bool is_harmless_line(std::string_view line);
// A line that names a part of the GPU stack (CUDA, a driver, a device, a GPU library, the CPU a
// build fell back to). A warning counts as an error line only with one of these words.
bool names_gpu_stack(std::string_view line);
// TensorFlow's or XLA's INFO line ("... I tensorflow/core/platform/cpu_feature_guard.cc:182]").
bool is_tensorflow_info(std::string_view line);

// What a whole log is compared and classified by: its error lines (the first 64 KiB of them), or
// in a short log without any, the lines that name the GPU stack (all of it when none does), as
// Collector keeps them while it reads. A short log whose text
// this returns whole needs a neighbour kShortLogMinSimilarity near.
std::string similarity_text(std::string_view log);

class SimilarCases {
 public:
  // From the corpus as JSON lines (id, log, primary, url, fix, split): the cases of `split` only,
  // but those of `leave_out`'s fold. A malformed line is an error naming it.
  static Result<SimilarCases> from_jsonl(std::string_view text, std::string_view split,
                                         HeldOutFold leave_out = {});
  // The corpus embedded in this binary (its dev split), built on first use.
  static const SimilarCases& embedded();

  // Causes ranked by the classifier, each with its nearest reports; only causes with a case that
  // shares a word with the text. `exclude_url` leaves one thread's cases out of the reports.
  // Empty when no case is as near as `min_similarity`.
  std::vector<SimilarVote> vote(std::string_view text, double min_similarity = 0,
                                std::string_view exclude_url = {}) const;
  size_t size() const { return cases_.size(); }

 private:
  struct Case {
    size_t cause_index = 0;  // into causes_
    SimilarReport report;
  };
  struct Posting {
    size_t case_index;
    double weight;
  };
  struct Term {
    double idf = 0;
    std::vector<Posting> postings;     // the cases that hold it, with its normalised weight there
    std::vector<float> cause_weights;  // the classifier's, one per cause; empty: none learnt
  };
  // A case's error lines as the classifier sees them: (term, weight) pairs, normalised.
  using SparseVector = std::vector<std::pair<Term*, double>>;
  void learn_causes(const std::vector<SparseVector>& examples);
  std::vector<double> cause_scores(const std::vector<std::pair<const Term*, double>>& query) const;

  std::vector<Case> cases_;
  std::vector<std::string> causes_;  // the distinct causes, in order of first appearance
  std::vector<double> cause_bias_;
  // Hashed: the index holds some 20 000 terms (words and pairs) and is built once per run.
  std::unordered_map<std::string, Term> terms_;
};

}  // namespace gpuvet::explain
