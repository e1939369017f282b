// Reported cases like a log: the words it is compared by, which lines vote, the vote itself on a
// small corpus, and explain's use of the embedded one.
#include "explain/similar_cases.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "explain_support.hpp"
#include "report/render_explain.hpp"

namespace gpuvet::explain {
namespace {

bool has(const std::vector<std::string>& terms, const std::string& term) {
  return std::find(terms.begin(), terms.end(), term) != terms.end();
}

TEST(SimilarityTerms, WordsLibraryNamesChineseAndPairs) {
  const auto terms = similarity_terms("Could not load dynamic library 'cudart64_110.dll'; sm_86.");
  EXPECT_TRUE(has(terms, "could"));
  EXPECT_TRUE(has(terms, "cudart64_110.dll"));
  EXPECT_TRUE(has(terms, "sm_86"));       // the trailing '.' is not part of it
  EXPECT_TRUE(has(terms, "could load"));  // "not" is a stop word between them
  EXPECT_FALSE(has(terms, "not"));
  const auto chinese = similarity_terms("\xE6\x89\xBE\xE4\xB8\x8D\xE5\x88\xB0 GPU");  // 找不到
  EXPECT_TRUE(has(chinese, "\xE6\x89\xBE"));
  EXPECT_TRUE(has(chinese, "\xE5\x88\xB0 gpu"));
}

TEST(SimilarityTerms, ALibraryMeetsItsOtherPlatformsSpelling) {
  const auto linux = similarity_terms("libcublasLt.so.12: cannot open shared object file");
  const auto windows = similarity_terms("Could not locate cublasLt64_12.dll");
  EXPECT_TRUE(has(linux, "libcublaslt.so.12"));  // the whole name stays a term
  EXPECT_TRUE(has(linux, "cublaslt"));
  EXPECT_TRUE(has(windows, "cublaslt"));
  EXPECT_TRUE(has(windows, "dll"));  // the platform's suffix says something
  EXPECT_FALSE(has(linux, "so"));    // two letters do not
}

TEST(SimilarityTerms, NumbersHexIdsAndBrokenBytesAreLeftOut) {
  const auto terms = similarity_terms("11.2 deadbeef42 a \xFF\xFE\xE6\x89 9.1.0");
  EXPECT_TRUE(terms.empty()) << terms.front();
}

TEST(IsErrorLine, ProblemsInEnglishAndChineseButNotProgress) {
  EXPECT_TRUE(is_error_line("Unable to init GPU: unknown error"));
  EXPECT_TRUE(is_error_line("CUDA SETUP: Required library version not found: libx.so"));
  EXPECT_TRUE(is_error_line("we can\xE2\x80\x99t see a device"));
  EXPECT_TRUE(is_error_line("OSError: [WinError 126] \xE6\x89\xBE\xE4\xB8\x8D\xE5\x88\xB0"));
  EXPECT_FALSE(is_error_line("Epoch 3/10 - 12s - loss: 0.2521 - accuracy: 0.9113"));
  EXPECT_FALSE(is_error_line("Successfully installed torch-2.1.0"));
}

TEST(IsErrorLine, AWarningCountsOnlyWhereItNamesTheGpuStack) {
  EXPECT_FALSE(is_error_line(
      "/x/_kmeans.py:870: FutureWarning: The default value of `n_init` will change from 10"));
  EXPECT_FALSE(is_error_line("  warnings.warn("));
  EXPECT_FALSE(
      is_error_line("Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__>"));
  EXPECT_TRUE(is_error_line("UserWarning: CUDA initialization: The NVIDIA driver is too old"));
  EXPECT_TRUE(is_error_line("UserWarning: FP16 is not supported on CPU; using FP32 instead"));
  EXPECT_TRUE(is_error_line("Exception ignored in: 'cuda._lib.ccudart.utils.cudaPythonGlobal'"));
  EXPECT_TRUE(is_error_line("RuntimeError: CUDA exception: device-side assert"));
  EXPECT_TRUE(names_gpu_stack("I tensorflow/core/common_runtime/gpu/gpu_device.cc:1900] Created"));
  // TensorFlow's INFO lines, printed on every start, are no errors unless they name the stack.
  EXPECT_FALSE(is_error_line(
      "2023-05-10 10:12:01.123456: I tensorflow/core/util/port.cc:110] oneDNN custom operations "
      "are on. You may see slightly different numerical results due to floating-point round-off "
      "errors from different computation orders."));
  EXPECT_TRUE(
      is_error_line("2023-05-10 10:12:01.1: I external/local_tsl/tsl/cuda/cudart_stub.cc:31] "
                    "Could not find cuda drivers on your machine, GPU will not be used."));
  // A note that only informs is no error line, whatever its words.
  EXPECT_FALSE(
      is_error_line("2023-05-10 10:12:01.1: I tensorflow/core/common_runtime/gpu/"
                    "gpu_device.cc:1] Could not identify NUMA node of platform GPU"));
  EXPECT_TRUE(
      is_tensorflow_info("2023-05-10 10:12:01.2: I external/xla/xla/service/service.cc:168]"));
  EXPECT_FALSE(
      is_tensorflow_info("2023-05-10 10:12:01.2: W tensorflow/core/common_runtime/x.cc:1]"));
  EXPECT_FALSE(names_gpu_stack("Epoch 3/10 - 12s - loss: 0.2521"));
}

constexpr const char* kSmallCorpus =
    R"({"id": "x1", "log": "Unable to init GPU: unknown error", "primary": "device.busy_or_init_failed", "url": "https://example.org/1", "fix": "rebooted", "split": "dev"}
{"id": "x2", "log": "GPU init failed: unknown error after suspend", "primary": "device.busy_or_init_failed", "url": "https://example.org/2", "fix": "reloaded nvidia_uvm", "split": "dev"}
{"id": "x3", "log": "Could not load dynamic library 'cudnn64_8.dll'", "primary": "cudnn.missing", "url": "https://example.org/3", "fix": "installed cuDNN", "split": "dev"}
{"id": "x4", "log": "Unable to init GPU: unknown error", "primary": "driver.missing", "url": "https://example.org/4", "fix": "held out", "split": "heldout"}
{"id": "x5", "log": "Unable to init GPU: unknown error", "primary": "+proposed.cause", "url": "https://example.org/5", "fix": "not yet a cause", "split": "dev"}
)";

TEST(SimilarCases, TheNearestCasesVoteWithTheirThreads) {
  auto cases = SimilarCases::from_jsonl(kSmallCorpus, "dev");
  ASSERT_TRUE(cases) << cases.error().message;
  EXPECT_EQ(cases->size(), 3u);  // the held-out case and the '+' cause are not answers
  const auto votes = cases->vote("error: Unable to init GPU (unknown error)");
  ASSERT_FALSE(votes.empty());
  EXPECT_EQ(votes[0].cause, "device.busy_or_init_failed");
  EXPECT_EQ(votes[0].votes, 2u);
  ASSERT_FALSE(votes[0].reports.empty());
  EXPECT_EQ(votes[0].reports[0].url, "https://example.org/1");  // the nearest first
  EXPECT_GT(votes[0].reports[0].similarity, votes[0].reports[1].similarity);
  for (const auto& v : votes)
    EXPECT_NE(v.cause, "cudnn.missing");  // no word in common: no vote
}

TEST(SimilarCases, OneThreadLeftOutAndTooFarIsNothing) {
  auto cases = SimilarCases::from_jsonl(kSmallCorpus, "dev");
  ASSERT_TRUE(cases);
  const auto without = cases->vote("Unable to init GPU: unknown error", 0, "https://example.org/1");
  ASSERT_FALSE(without.empty());
  EXPECT_EQ(without[0].reports[0].url, "https://example.org/2");
  EXPECT_TRUE(cases->vote("Unable to init GPU", 0.99).empty());
  EXPECT_TRUE(cases->vote("loss went down nicely").empty());
}

// The classifier weighs the words that tell causes apart: "unknown error" is in both causes'
// cases here, "suspend" only in one cause's, so a log with both goes to that cause and a log with
// the shared words alone to the other.
constexpr const char* kWordsThatTellApart =
    R"({"id": "y1", "log": "GPU init failed: unknown error", "primary": "driver.missing", "url": "https://example.org/a", "fix": "a", "split": "dev"}
{"id": "y2", "log": "init failed: unknown error on start", "primary": "driver.missing", "url": "https://example.org/b", "fix": "b", "split": "dev"}
{"id": "y3", "log": "unknown error: init failed again", "primary": "driver.missing", "url": "https://example.org/c", "fix": "c", "split": "dev"}
{"id": "y4", "log": "unknown error after suspend", "primary": "device.busy_or_init_failed", "url": "https://example.org/d", "fix": "d", "split": "dev"}
{"id": "y5", "log": "suspend broke it: unknown error", "primary": "device.busy_or_init_failed", "url": "https://example.org/e", "fix": "e", "split": "dev"}
)";

TEST(SimilarCases, TheClassifierWeighsTheWordsThatTellCausesApart) {
  auto cases = SimilarCases::from_jsonl(kWordsThatTellApart, "dev");
  ASSERT_TRUE(cases) << cases.error().message;
  const auto after_suspend = cases->vote("unknown error after suspend and resume");
  ASSERT_GE(after_suspend.size(), 2u);
  EXPECT_EQ(after_suspend[0].cause, "device.busy_or_init_failed");
  EXPECT_GT(after_suspend[0].share, after_suspend[1].share);
  EXPECT_EQ(after_suspend[0].reports.at(0).url, "https://example.org/d");
  const auto at_init = cases->vote("init failed: unknown error");
  ASSERT_FALSE(at_init.empty());
  EXPECT_EQ(at_init[0].cause, "driver.missing");
  // Shares are a softmax over every cause: they never add up to more than one.
  double total = 0;
  for (const auto& v : after_suspend)
    total += v.share;
  EXPECT_LE(total, 1.0 + 1e-9);
}

TEST(SimilarCases, LearningIsTheSameEveryTimeAndAFoldCanBeLeftOut) {
  auto first = SimilarCases::from_jsonl(kWordsThatTellApart, "dev");
  auto second = SimilarCases::from_jsonl(kWordsThatTellApart, "dev");
  ASSERT_TRUE(first && second);
  const auto a = first->vote("unknown error after suspend");
  const auto b = second->vote("unknown error after suspend");
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].cause, b[i].cause);
    EXPECT_EQ(a[i].share, b[i].share);  // exactly: no randomness but a fixed-seed order
  }
  // A thread's fold is a function of its URL alone; leaving a fold out leaves its cases out.
  EXPECT_EQ(fold_of("https://example.org/a", 5), fold_of("https://example.org/a", 5));
  EXPECT_LT(fold_of("https://example.org/a", 5), 5u);
  size_t kept = 0;
  for (size_t fold = 0; fold < 3; ++fold) {
    auto without = SimilarCases::from_jsonl(kWordsThatTellApart, "dev", {3, fold});
    ASSERT_TRUE(without);
    kept += without->size();
  }
  EXPECT_EQ(kept, 2 * first->size());  // each case is left out of exactly one of the three
}

TEST(SimilarCases, AMalformedCorpusLineIsAnErrorNamingIt) {
  const auto broken = SimilarCases::from_jsonl("{\"id\": \"x1\"}\n{not json\n", "dev");
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("line 2"), std::string::npos) << broken.error().message;
  EXPECT_FALSE(SimilarCases::from_jsonl("[1, 2]\n", "dev"));
}

TEST(SimilarCases, TheEmbeddedCorpusIsItsDevSplit) {
  EXPECT_GT(SimilarCases::embedded().size(), 1000u);
}

// Real held-out cases no signature knows (tests/explain_corpus g015, A018, b079): their neighbours
// in the dev split name the cause the threads found, after nothing, with the threads to read.
TEST(ExplainSimilar, ALogNoSignatureKnowsGetsItsNeighboursCause) {
  const std::pair<const char*, const char*> cases[] = {
      {"VllM \xEF\xBC\x9A NCCLerror: unhandled system error (run withNCCL DEBUG=INFo for details)",
       "nccl.error"},
      {"CUDA error: Insufficient CUDA driver: 9020", "driver.too_old"},
      {"error loading fbgemm.dll", "msvc.runtime_missing"}};
  for (const auto& [line, cause] : cases) {
    EXPECT_TRUE(testing::explain_by_signatures(std::string(line) + "\n").empty()) << line;
    const auto causes = testing::explain_text(std::string(line) + "\n");
    ASSERT_FALSE(causes.empty()) << line;
    EXPECT_EQ(causes[0].id, cause) << line;
    EXPECT_TRUE(causes[0].similar);
    EXPECT_FALSE(causes[0].reports.empty());
    EXPECT_LE(causes[0].confidence, 0.5);
  }
}

TEST(ExplainSimilar, SignaturesRankFirstAndHealthyLogsResembleNothing) {
  const auto causes =
      testing::explain_text("Could not load dynamic library 'cudnn64_8.dll'; dlerror: not found\n");
  ASSERT_FALSE(causes.empty());
  EXPECT_FALSE(causes[0].similar);
  for (size_t i = 1; i < causes.size(); ++i)
    EXPECT_TRUE(!causes[i - 1].similar || causes[i].similar) << "a reported case before a line";
  EXPECT_TRUE(
      testing::explain_text("Epoch 1/3\nloss: 0.51 - accuracy: 0.83\nSaved model\n").empty());
  EXPECT_TRUE(testing::explain_text("hello world\n").empty());
}

// A short log without an error line is compared by its lines that name the GPU stack: the
// program's other output around them changes nothing.
TEST(ExplainSimilar, AShortLogWithoutErrorLinesIsComparedByItsGpuLines) {
  const std::string line =
      "localhost:1:1 [1] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856\n";
  const auto plain = testing::explain_text(line);
  ASSERT_FALSE(plain.empty());
  const auto noisy = testing::explain_text(
      "Collecting numpy>=1.17\nSuccessfully installed numpy-1.24.4\nINFO:root:Loading config\n" +
      line + "Epoch 1/10\n100%|##########| 50/50 [00:10<00:00,  4.87it/s]\n");
  ASSERT_FALSE(noisy.empty());
  EXPECT_EQ(noisy[0].id, plain[0].id);
}

TEST(ExplainSimilar, TheReportsAreRendered) {
  const auto causes = testing::explain_text("Unable to init GPU: unknown error\n");
  ASSERT_FALSE(causes.empty());
  const std::string url = causes[0].reports.at(0).url;
  const std::string json = report::render_explain_json(causes, {});
  EXPECT_NE(json.find("\"similar\""), std::string::npos);
  EXPECT_NE(json.find(url), std::string::npos);
  const std::string text = report::render_explain_text(causes, testing::messages(), false, {});
  EXPECT_NE(text.find(url), std::string::npos);
  const std::string md = report::render_explain_md(causes, testing::messages(), {});
  EXPECT_NE(md.find(url), std::string::npos);
}

}  // namespace
}  // namespace gpuvet::explain
