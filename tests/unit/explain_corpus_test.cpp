// The explain corpus (tests/explain_corpus/): real error excerpts from public threads with the
// cause each thread established. Every entry is checked for shape; accuracy is measured on the dev
// and the held-out split and printed. The floors are a ratchet at the last measured values, so that
// a signature change that loses real cases fails; issue 19's goal is held-out top-1 >= 90%.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "explain/same_machine.hpp"
#include "explain/similar_cases.hpp"
#include "explain_support.hpp"
#include "pipeline/diagnose.hpp"
#include "system/replay_system.hpp"
#include "test_support.hpp"

namespace gpuvet::explain {
namespace {

std::vector<nlohmann::json> corpus() {
  const std::string path = std::string(GPUVET_EXPLAIN_CORPUS) + "/corpus.jsonl";
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::vector<nlohmann::json> rows;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) rows.push_back(nlohmann::json::parse(line));
  }
  return rows;
}

// The cases a corpus-wide test reads: all, or a sample under the sanitizers.
std::vector<nlohmann::json> cases_under_test() {
  std::vector<nlohmann::json> rows = corpus();
  std::vector<nlohmann::json> picked;
  for (size_t i = 0; i < rows.size(); ++i)
    if (testing::sampled(i)) picked.push_back(std::move(rows[i]));
  return picked;
}

const std::set<std::string>& taxonomy() {
  static const std::set<std::string> ids = [] {
    std::set<std::string> out;
    const auto& table = testing::kb_table("taxonomy");
    for (size_t row = 0; row < table.size(); ++row)
      out.insert(table.cell(row, "id"));
    return out;
  }();
  return ids;
}

std::string text_of(const nlohmann::json& row, const char* key) {
  return row.contains(key) && row[key].is_string() ? row[key].get<std::string>() : "";
}

// What a case is measured with: a held-out case with the dev split as gpuvet embeds it; a dev
// case with what was learnt from the other four fifths of the dev threads (cross-validation by
// thread), so that no dev case is scored by a classifier that learnt it.
constexpr size_t kDevFolds = 5;
const SimilarCases& reported_cases_for(const nlohmann::json& row) {
  static const std::vector<SimilarCases> folds = [] {
    std::ifstream in(std::string(GPUVET_EXPLAIN_CORPUS) + "/corpus.jsonl");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<SimilarCases> out;
    for (size_t fold = 0; fold < kDevFolds; ++fold) {
      auto learnt = SimilarCases::from_jsonl(text, "dev", {kDevFolds, fold});
      EXPECT_TRUE(learnt) << learnt.error().message;
      out.push_back(learnt ? std::move(*learnt) : SimilarCases());
    }
    return out;
  }();
  if (text_of(row, "split") != "dev") return SimilarCases::embedded();
  return folds[fold_of(text_of(row, "url"), kDevFolds)];
}

std::vector<Cause> explain_case(const nlohmann::json& row) {
  return testing::explain_with(text_of(row, "log"), std::nullopt, &reported_cases_for(row),
                               text_of(row, "url"));
}

TEST(ExplainCorpus, EveryCaseIsSourcedAndSplitByThread) {
  const auto rows = corpus();
  ASSERT_GE(rows.size(), 400u);
  std::set<std::string> ids;
  std::map<std::string, std::string> split_of_url;
  for (const auto& row : rows) {
    const std::string id = text_of(row, "id");
    EXPECT_TRUE(ids.insert(id).second) << "duplicate id " << id;
    EXPECT_TRUE(text_of(row, "url").starts_with("http")) << id;
    EXPECT_FALSE(text_of(row, "log").empty()) << id;
    EXPECT_FALSE(text_of(row, "fix").empty()) << id;
    const std::string primary = text_of(row, "primary");
    EXPECT_TRUE(taxonomy().count(primary) || primary.starts_with("+")) << id << ": " << primary;
    const std::string secondary = text_of(row, "secondary");
    EXPECT_TRUE(secondary.empty() || taxonomy().count(secondary) || secondary.starts_with("+"))
        << id << ": " << secondary;
    const std::string split = text_of(row, "split");
    EXPECT_TRUE(split == "dev" || split == "heldout") << id;
    const auto [it, inserted] = split_of_url.emplace(text_of(row, "url"), split);
    EXPECT_EQ(it->second, split) << id << ": one thread, two splits";
    const std::string lang = text_of(row, "lang");
    EXPECT_TRUE(lang == "en" || lang == "zh") << id;
  }
}

// Every cause of the taxonomy is measured on real threads: at least eight cases name it, as the
// primary cause or as the second one the thread showed (a log level that hid the message is
// mostly the second: the fix was for what the hidden lines then said).
TEST(ExplainCorpus, EveryCauseHasEightRealCases) {
  std::map<std::string, size_t> cases_of;
  for (const auto& row : corpus()) {
    std::set<std::string> named = {text_of(row, "primary"), text_of(row, "secondary")};
    for (const auto& cause : named)
      ++cases_of[cause];
  }
  for (const auto& cause : taxonomy()) {
    EXPECT_GE(cases_of[cause], 8u) << cause;
  }
}

// GPUVET_EXPLAIN_CORPUS_DUMP=FILE writes every case's causes and its full vote of the reported
// cases as JSON lines: what ranking changes are studied on (docs/explain.md).
void dump_case(const nlohmann::json& row, const std::vector<Cause>& causes) {
  static std::optional<std::ofstream> out = []() -> std::optional<std::ofstream> {
    const char* path = std::getenv("GPUVET_EXPLAIN_CORPUS_DUMP");
    if (!path) return std::nullopt;
    return std::ofstream(path);
  }();
  if (!out) return;
  nlohmann::json line = {{"id", text_of(row, "id")},
                         {"split", text_of(row, "split")},
                         {"primary", text_of(row, "primary")},
                         {"secondary", text_of(row, "secondary")}};
  for (const auto& c : causes) {
    line["causes"].push_back({{"id", c.id},
                              {"confidence", c.confidence},
                              {"alternative", c.alternative},
                              {"similar", c.similar},
                              {"signatures", c.signatures},
                              {"why", c.why}});
  }
  const std::string log = text_of(row, "log");
  const std::string compared = similarity_text(log);
  bool any_error_line = false;
  for (size_t pos = 0; pos <= log.size() && !any_error_line;) {
    const size_t end = std::min(log.find('\n', pos), log.size());
    any_error_line = is_error_line(std::string_view(log).substr(pos, end - pos));
    pos = end + 1;
  }
  const bool short_whole = !any_error_line && log.size() <= kShortLogBytes;
  for (const auto& v : reported_cases_for(row).vote(
           compared, short_whole ? kShortLogMinSimilarity : 0.0, text_of(row, "url"))) {
    line["vote"].push_back({{"cause", v.cause},
                            {"share", v.share},
                            {"votes", v.votes},
                            {"top", v.reports.empty() ? 0.0 : v.reports[0].similarity}});
  }
  *out << line.dump() << "\n" << std::flush;
}

struct Score {
  size_t total = 0, top1 = 0, top3 = 0;
  double share(size_t n) const { return total ? static_cast<double>(n) / total : 0.0; }
  // Counts one case; whether its first cause is one it wants.
  bool add(const std::vector<Cause>& causes, const std::set<std::string>& wanted) {
    ++total;
    const bool first = !causes.empty() && wanted.count(causes[0].id);
    bool in_three = false;
    for (size_t i = 0; i < std::min<size_t>(3, causes.size()); ++i)
      in_three = in_three || wanted.count(causes[i].id);
    top1 += first;
    top3 += in_three;
    return first;
  }
};

// The causes a case counts as right: its primary, and its secondary where the taxonomy has it.
std::set<std::string> wanted_of(const nlohmann::json& row) {
  std::set<std::string> wanted = {text_of(row, "primary")};
  if (const std::string second = text_of(row, "secondary"); taxonomy().count(second)) {
    wanted.insert(second);
  }
  return wanted;
}

TEST(ExplainCorpus, AccuracyOnDevAndHeldOut) {
  std::map<std::string, Score> scores;
  std::string misses;
  for (const auto& row : cases_under_test()) {
    const std::string primary = text_of(row, "primary");
    if (!taxonomy().count(primary)) continue;  // a cause the taxonomy does not have yet
    const auto causes = explain_case(row);
    const bool first = scores[text_of(row, "split")].add(causes, wanted_of(row));
    dump_case(row, causes);
    if (!first && text_of(row, "split") == "dev") {
      misses += "  " + text_of(row, "id") + " wants " + primary + ", got " +
                (causes.empty() ? std::string("nothing") : causes[0].id) + "\n";
    }
  }
  for (const auto& [split, s] : scores) {
    std::printf("explain corpus %s: %zu cases, top-1 %zu (%.0f%%), top-3 %zu (%.0f%%)\n",
                split.c_str(), s.total, s.top1, 100 * s.share(s.top1), s.top3,
                100 * s.share(s.top3));
  }
  // The ratchet: the values last measured (when the corpus landed: dev 47%, held-out 39%; after
  // the first signatures written against dev and two new taxonomy ids: 70% and 55%; with 177
  // more cases, eight new ids and the alternatives behind each message: 70%/77% and 61%/66%;
  // with the log's own facts and 173 more cases, whose held-out part scored 51% blind: 73%/80%
  // and 63%/68%; with signatures from that round's dev part: 84%/91% and 69%/74%; with 143
  // more cases, whose held-out part scored 49% blind, and signatures from their dev part: 82%/89%
  // and 67%/72%; with 135 more, whose held-out part scored 59% blind, and signatures from their
  // dev part: 82%/89% and 66.9%/71.9%; with 74 more, 64% blind, and their dev signatures:
  // 82%/89% and 66.7%/72.2%; with 34 more, 65% blind, and 80 more, whose held-out part scored
  // 48% blind, and their dev signatures: 82.5%/90.1% and 65.9%/71.8%). Raise them with every
  // signature change. A floor comes down only when a new round's held-out cases, measured blind,
  // bring the share down with no signature changed, as round eight's did (66.5% -> 65.3%; 65.9%
  // after its dev signatures).
  // With messages wrapped over two lines joined (the head of the log): 83.0%/90.6% and
  // 66.7%/72.6%. With rounds nine and ten (147 cases, harder than the rest: 21 of their 45 held-out
  // right blind) and the signatures of their dev part: 83.2%/91.6% and 67.4%/74.3%. Round eleven
  // (55 cases from GPU programs outside the frameworks and Windows desktop apps: 7 of its 20
  // held-out right blind) brought the held-out share down; with its dev signatures 83.1%/91.5%
  // and 66.8%/73.9%. The +cpu version tag (named in issue 19): held-out 67.7%/74.8%. Round twelve
  // (56 cases from scientific codes, media programs, inference servers and Jetson: 11 of its 18
  // held-out right blind) and its dev signatures: 82.9%/91.4% and 68.4%/75.4% (the dev share
  // fell with the new dev cases, none of the old ones lost). One dev case (c067) gave way to the
  // public fixture e138, whose thread resolved the same message to the driver: 781 right.
  // Round thirteen (38 cases from 2025-26 framework threads and Chinese projects: 7 of its 11
  // held-out right blind) and its dev signatures: 82.8%/91.5% and 68.2%/75.3%.
  // Round fourteen (166 scored cases aimed at where the held-out misses were: CPU-only builds,
  // the driver layer, NCCL and device state, non-ML programs, containers, Chinese projects and
  // Windows installs: 21 of its 52 held-out right blind) brought the shares down with no
  // signature changed (79.2%/87.6% and 65.4%/73.2%); with its dev signatures 82.4%/90.9% and
  // 66.2%/73.9%, no case of the earlier rounds lost. Round fifteen (104 scored cases: TensorFlow
  // on Windows and WSL, PyTorch 2.x with Triton, LLM servers, image and audio apps, less common
  // frameworks, the system layer: 23 of its 41 held-out right blind, round fourteen's signatures
  // included) brought the held-out share to 65.5%; with its dev signatures 82.2%/90.8% and
  // 65.7%/73.9%, no earlier case lost. A program's own "running on CPU" words as a symptom of a
  // build without CUDA (what most such dev threads resolved): 82.3%/90.9% and 66.0%/74.4%.
  // Round sixteen (99 scored cases, most of six causes the taxonomy gained with it: 8 of its 35
  // held-out right blind) and 53 earlier cases relabelled to those causes: with the signatures
  // from the dev parts 82.3%/90.5% and 66.4%/74.5%, no earlier case lost.
  // Round seventeen (122 scored cases where the held-out misses were: 15 of its 39 held-out right
  // blind) brought the shares down with no signature changed (79.2%/87.7% and 64.6%/73.3%); with
  // its dev signatures and the MIG id 81.5%/90.2% and 64.9%/73.6%, no earlier case lost.
  // Round eighteen (52 scored cases for breadth: 12 of its 18 held-out right blind, measured
  // with rounds sixteen and seventeen's signatures) and no signature from it yet: 81.3%/89.9%
  // and 65.0%/73.4% (the dev top-3 share fell with its dev cases, none of the old ones lost).
  // Its dev signatures (Ollama's numeric init codes, a TensorFlow custom op's undefined symbol, a
  // named extension's missing procedure, StreamExecutor without BLAS) and nine threads relabelled
  // by the extension rule: 81.6%/90.1% and 65.1%/73.6%, no case lost by a signature.
  // Round nineteen (106 scored cases where the held-out misses were: CPU-only builds and no GPU,
  // the driver layer in programs outside Python, containers and NCCL, architectures and
  // versions: 14 of its 30 held-out right blind) brought the shares down with no signature
  // changed (79.5%/87.8% and 64.3%/72.5%); with its dev signatures and contractions matched with
  // a typographic apostrophe 81.4%/89.6% and 64.6%/72.8%, no earlier case lost.
  // With the reported cases like the log (the dev split's nearest neighbours, each dev case
  // scored without its own thread) after what the signatures name: 82.1%/92.0% and 72.8%/84.8%,
  // no case lost. Round twenty (48 scored cases: 9 of its 16 held-out right blind, 7 with the
  // signatures alone) joined the index with its dev part: 81.6%/91.6% and 72.6%/84.7%.
  // Round twenty-one (27 cases: 12 Chinese threads, 4 of their 6 held-out right blind, and 15 of
  // three causes the taxonomy gained with it, none of whose 3 held-out cases could be named
  // before) with 20 earlier cases of those causes scored or relabelled to them, and their
  // signatures: 81.7%/91.5% and 72.9%/84.7%. Lost: two Slurm threads whose "invalid device
  // ordinal" now names the index first (gpu.not_visible second) and two dev cases' top three
  // (neighbours moved by the new dev cases); no held-out case lost.
  // A linear classifier (one SVM per cause, learnt from the dev cases' error lines) ranking the
  // reported cases' causes instead of the 15 nearest cases' vote: 81.9%/91.5% and 73.1%/86.0%;
  // from here each dev case is scored by what was learnt from the other four fifths of the dev
  // threads (it was: the index without its own thread). Round twenty-one's last 16 cases
  // (TensorFlow, CuPy, bitsandbytes, NCCL, Ollama: 5 of their 7 held-out right blind):
  // 81.8%/91.6% and 73.1%/85.8%. Round twenty-two (37 cases: busy devices, extensions,
  // shadowed copies, CUDA/cuDNN versions, no GPU, CPU-only builds: 5 of its 13 held-out right
  // blind, 11 in the top three): 81.3%/91.4% and 72.5%/85.8%. Round twenty-three (29 cases:
  // bitsandbytes, JAX's CUDA component checks, PTX toolchains, ONNX Runtime's CUDA provider; 3
  // of its 7 scored held-out right blind, 5 after) with signatures from JAX's and bitsandbytes' own
  // sources and ONNX Runtime's provider failures named by the dev threads' majority (another CUDA
  // major): 81.1%/91.2% and 73.7%/86.9%; lost 4 dev and 1 held-out first places (ONNX Runtime
  // threads that were cuDNN's) and 2 held-out top threes (neighbours moved). Round twenty-four
  // (25 scored: CuPy and Numba, llama.cpp/Ollama and Stable Diffusion, WSL2; 6 of its 10
  // held-out right blind, 9 in the top three) took the dev share under 81 %: 80.4 %; with
  // signatures for Numba's library report, 'library nvvm not found', nvidia-smi missing, and
  // libcuda.so before the library that needs it: 80.8 %/91.1 % and 73.4 %/86.8 %. The dev
  // floor is 80 % from here. CUDA error 804 (forward compatibility on a GPU without it) naming a
  // host driver older than the image's CUDA first, and a CUDA-built DLL's missing dependencies
  // naming the CUDA runtime, as most dev threads resolved them: 81.2 %/91.1 % and 73.8 %/86.9 %
  // (3 held-out 804 threads gained; 2 dev threads that were a driver/library mismatch lost). Round
  // twenty-five (24 cases: TensorRT and vLLM, NCCL and torch.distributed, Chinese threads; all 9
  // held-out right blind): 81.1 %/91.1 % and 74.1 %/87.1 %. Round twenty-six (31 cases: a log
  // level hiding the error, a Linux driver in WSL, Chinese repositories, TensorRT's DLLs,
  // FlashAttention, rare causes; 7 of its 12 held-out right blind): 81.0 %/90.9 % and
  // 74.1 %/87.1 %; with signatures for flash-attention 1.x's bare compute-capability check, ONNX
  // Runtime's TensorRT provider DLL, an engine TensorRT would not deserialize, distutils' nvcc
  // and xFormers built without CUDA (its "No operator found" now a symptom, whose reasons name
  // the cause): 81.3 %/91.2 % and 74.3 %/87.1 %. CUDA's stub driver (error 34), cuDNN naming a
  // cuBLAS DLL it could not locate, Paddle's NCCL: 81.5 %/91.4 % and 74.4 %/87.3 %. Every
  // signature's `also` ordered by what its dev threads resolved to (order_also.py; the column's
  // meaning, kept by hand until now): top-3 92.6 % and 88.4 % (9 held-out top threes gained, no
  // first place changed). Top-3 floors 0.92 and 0.88 from here. Round twenty-seven (80 cases:
  // compiled extensions, Triton and DeepSpeed, GBDT/RAPIDS/OpenCV and older frameworks, recent
  // TensorFlow/JAX/PyTorch, Chinese threads; 13 of its 21 scored held-out right blind, 17 in the
  // top three): 80.5 %/92.0 % and 74.3 %/88.2 %; with signatures for PyTorch's own libraries
  // missing (libc10_cuda: a CPU-only build; libtorch_cpu: an extension for a newer PyTorch), a
  // CUDA extension module never built, AutoGPTQ's kernels not loading, a PTX feature a newer GPU
  // has, and TensorFlow/LLVM naming a GPU newer than the build: 80.9 %/92.4 % and 74.3 %/88.2 %.
  // bitsandbytes' "CUDA Setup failed despite GPU being available" naming native Windows first,
  // as its dev threads resolved (2 of 3; a Linux log ranks it after what fits Linux): 81.0 %.
  // conda's CPU builds by their build string (cpu_ in jaxlib/pytorch/tensorflow, cpuonly,
  // pytorch-mutex, _pytorch_select cpu_0): 81.1 %/92.6 %.
  // Round twenty-eight (60 cases: PyTorch's own threads, containers and Kubernetes, image
  // generation front-ends, conda and Jupyter, local LLM runners; 11 of its 19 scored held-out
  // right blind, 14 in the top three) took the held-out top-3 share under 88 %: 74.1 %/87.8 %,
  // so that floor is 0.87 from here. Signatures from its dev part (ggml built without the GPU's
  // architecture, conda's __cuda conflict, conda's package plan naming a CPU build,
  // nvidia-container-cli's ldcache error), a program's missing CUDA DLL naming the CUDA runtime
  // first (3 of its 4 dev threads; 1 held-out thread lost), `also` reordered again:
  // 81.1 %/92.5 % and 73.9 %/87.8 %. A macOS log (now also by its /Users/<name> paths) that
  // names a CPU-only build or no GPU is CUDA's absence on macOS (gpu.none): 81.2 %.
  // Round twenty-nine (53 cases: TensorFlow on Windows, NCCL, JAX/XLA, Paddle, inference
  // runtimes; 10 of its 17 held-out right blind, 13 in the top three): 80.9 %/92.1 % and
  // 73.8 %/87.7 %; TensorRT's missing plugin and DALI's libnvcuvid (a container without the video
  // capability) from its dev part: 81.0 %/92.2 %. A short log with no error line compared
  // whole from a similarity of 0.15 (was 0.2): 81.1 %/92.3 % and 74.1 %/88.2 %.
  // Round thirty (83 cases: machines with no NVIDIA GPU, GPU programs outside the frameworks,
  // the Linux driver layer, run-time CUDA errors, Windows DLL loads, Jetson, HPC clusters,
  // older frameworks; 15 of its 29 scored held-out right blind, 25 in the top three):
  // 80.3 %/92.1 % and 73.3 %/88.1 %. Signatures from its dev part (PyG extensions built for
  // another CUDA, a CPU-only PyTorch's ATen_cuda, cuDNN's EXECUTION_FAILED on a GPU newer than
  // the build's CUDA, JetPack's empty placeholder libraries, the kernel locked down by Secure
  // Boot, a Fabric Manager config item), `also` reordered: 80.8 %/92.4 % and 73.2 %/88.3 %.
  // Held-out top-3 floor 0.88 from here.
  // Round thirty-one (61 cases: CUDA in WSL2, Triton and TensorFlow on native Windows, shadowed
  // copies, busy devices and CUDA before fork, GPUs not visible, conflicting packages, CUDA
  // libraries of another version, Chinese projects; 11 of its 20 held-out right blind, 13 in the
  // top three) took the held-out top-3 share under 88 %: 80.0 %/92.1 % and 72.8 %/88.0 %, so
  // that floor is 0.87 again. Signatures from its dev part (Triton's Linux-only wheels,
  // TensorFlow's configure warning on Windows, several CuPy packages, a conda environment's
  // older libstdc++, cublasLt symbols from another copy; a forked child's CUDA error says to use
  // spawn): 80.6 %/92.3 % and 72.8 %/88.0 %. A library's name also gives its stem to the
  // reported-case comparison ("cublaslt" in both libcublasLt.so.12 and cublasLt64_12.dll): dev
  // one fewer first (1447 -> 1446, the only count floor that came down: a method change, not
  // a signature) and eight more in the top three, 80.5 %/92.7 % and 73.4 %/88.7 %.
  // Round thirty-one's cublasLt signature withdrawn (the public excerpt e022 names
  // lib.symbol_mismatch first for that message, and the threads split three to three). Round
  // thirty-two (60 cases: cuDNN versions, old drivers, CPU-only builds, old and new GPU
  // architectures, localized Windows messages, local LLM runners, image-generation front-ends,
  // cloud notebooks; 15 of its 26 held-out right blind, 23 in the top three): 80.1 %/92.5 % and
  // 73.2 %/88.3 %. Signatures from its dev part (cuDNN's SUBLIBRARY_VERSION_MISMATCH, Numba's
  // "Driver missing function" of a newer entry point), `also` reordered: 80.3 %/92.6 %.
  // Held-out top-3 floor 0.88.
  // Round thirty-three (18 cases, 11 scored: the search tool's budget ran out early; 2 of its 4
  // held-out right blind): 80.3 %/92.5 % and 73.4 %/88.2 %. nvcc's older "Unsupported GPU
  // architecture" spelling now matches too, and Numba's two spellings of "driver missing
  // function" are one signature, cuInit apart (no corpus case changed).
  // Round thirty-four (45 cases: WSL2, container toolkits, building extensions, ONNX Runtime and
  // TensorRT, JAX, TensorFlow, Chinese threads, PyTorch run-time errors; 5 of its 7 scored
  // held-out right blind, 7 in the top three): 80.0 %/92.4 % and 73.3 %/88.3 %. Signatures from
  // its dev part (a Linux driver's libnvidia-ml listed with WSL's, FlashAttention's CUDA floor,
  // an extension's free function taking an at::Tensor): 80.2 %/92.5 %.
  // Round thirty-five (38 cases: Windows outside English, RAPIDS/Numba/PyCUDA, clusters and
  // drivers, distributed training, AI front-ends, older frameworks; 5 of its 8 scored held-out
  // right blind, 6 in the top three): 79.9 %/92.4 % and 73.2 %/88.4 %. Signatures from its dev
  // part (a Windows path past 260 characters not found, a GPU in use by another process,
  // PyCUDA's invalid device, dlib's cuDNN not found, MXNet built without CUDA): 80.1 %/92.5 %
  // and 73.4 %/88.6 %.
  // cuda.toolkit_dropped_arch (14 cases) and cuda.host_compiler_unsupported (8) join the
  // taxonomy: their '+' cases and five threads whose fix was removing an architecture the toolkit
  // dropped (y003, y012, y013, b061, CD004) are scored under them; nvcc's refusal of a compute
  // capability no toolkit of the last two majors builds is named so even where the table does not
  // know its last toolkit (compute_20), and nvcc's "Value 'native'" is an nvcc older than 11.6.
  // Round thirty-six (33 cases, from the leads earlier rounds could not resolve; 3 of its 7
  // held-out right blind, 4 in the top three): 80.1 %/92.3 % and 73.2 %/88.3 %. Signatures from
  // its dev part (cudaDeviceGetDefaultMemPool refused, faiss' GPU index past the devices, an
  // allocation of exabytes): 80.3 %/92.5 % and 73.2 %/88.3 %. order_also.py counted the cases
  // the rule above renames towards nvcc's `also`, which put the dropped architecture first there
  // (dev top three -2, held-out -1); it now leaves a rule's cases out, and the order stays.
  // modprobe's "could not insert 'nvidia': No such device" outranks "no CUDA-capable device" in
  // the same log (the module found no GPU to drive): dev +1. Round thirty-seven (33 cases:
  // machines without an NVIDIA GPU, shadowed copies, version mismatches in less common tools,
  // the driver layer, conflicting packages, Chinese and Japanese threads; 7 of its 10 held-out
  // right blind, 8 in the top three): 79.7 %/92.3 % and 73.2 %/88.2 %. Signatures from its dev
  // part (an Apple silicon name marks a Mac, where Docker has no NVIDIA GPU either; OpenCV's
  // cuDNN version check; an operator with no CUDA kernel; torch's _init_names from two
  // installations; NCCL symbols undefined at link time): 80.0 %/92.4 % and 73.3 %/88.2 %. The
  // dev top-1 share is 79.97 %: its floor is 0.79 from here (the count floors all rose).
  // Round thirty-eight (33 cases: Japanese projects, non-Python CUDA stacks, video and graphics
  // tools, scientific codes, GPU compute apps; 7 of its 14 held-out right blind, 8 in the top
  // three) took the held-out top-3 share under 88 %: 79.9 %/92.4 % and 73.0 %/88.0 % (87.98 %),
  // so that floor is 0.87 again. Signatures from its dev part (a binary not compiled for the GPU
  // architecture, a CPU build's "requires CUDA, which is not available"): 80.0 %/92.4 %.
  // Round thirty-nine (`RA`–`RH`, 32 cases; 6 of its 8 scored held-out right blind, 6 in the top
  // three): 80.1 %/92.5 % and 73.0 %/87.7 %. Its dev cases retrain the classifier: four older
  // held-out cases moved down (D023, F016, JA011 out of the top three; HA012 to second) and
  // one up (DB002 first). No signature from its dev part: its two dev misses are in the top three.
  // A warning line counts as an error line only where it names the GPU stack, and a short log
  // without error lines is compared by its lines that do (NoiseAroundTheLogKeepsTheAnswer below):
  // 80.1 %/92.5 % and 73.0 %/88.0 %.
  // Two signatures set by what their dev threads resolved to: a CUDA library's own undefined
  // symbol (libcublas.so.11 needing cublasLt's, libcudnn_graph.so.9 lacking cudnnGetLibConfig) is
  // another copy of it or its sibling found first (8 of 9), and libcudart.so.N that cannot be
  // opened names a CUDA of another version first (11 to 8): 80.5 %/92.5 % and 73.4 %/88.0 %.
  // Round forty (`SA`-`SH`, 34 cases: host compilers, allocators without memory pools, new GPUs
  // on old builds, inference runtimes; 8 of its 10 held-out right blind, 9 in the top three):
  // 80.3 %/92.3 % and 73.3 %/87.8 %. Signatures from its dev part (memory pools unsupported in
  // CuPy's, cuda-python's and CUDA's own words, an allocator's "operation not supported", GCC 11's
  // std_function.h that nvcc 11 cannot parse): 80.6 %/92.5 %. Shares' floors 0.80 and 0.73 from
  // here (the count floors all rose). Colab's "No backend with GPU available" and a program's
  // Chinese "回退到 CPU" from the dev misses without any cause named: 80.7 %/92.6 %.
  // Round forty-one (`TA`-`TH`, 26 cases: non-Python stacks, scientific codes, video tools,
  // threads outside English and Chinese, clusters, Windows desktop apps; 3 of its 4 scored
  // held-out right blind, 3 in the top three): 80.5 %/92.3 % and 73.2 %/87.7 %. Signatures from
  // its dev part (Lightning's GPU index past the machine's, torch.autocast's "CUDA is not
  // available"): 80.6 %/92.4 %.
  // Round forty-two (`UA`-`UD`, 20 cases of four causes the taxonomy gains: NCCL absent from
  // Windows builds, no host C compiler, the NVIDIA module failing to build, no persistence
  // daemon; their earlier '+' cases scored, and 14 cases relabelled by their fix; 2 of its 8
  // held-out right blind, 6 in the top three): 80.3 %/92.5 % and 72.5 %/87.6 %, so the held-out
  // share floor 0.72 from here. Signatures from its dev part: 81.0 %/92.8 % and 72.7 %/87.6 %
  // (6 of the round's 8 held-out right first).
  // Round forty-three (`VA`-`VC`, 15 cases: PyTorch's environment reports, PaddlePaddle's device
  // lines, ONNX Runtime and CuPy with their versions listed; 5 of its 5 held-out right blind, one
  // by the rule of a driver below what the log's build loads on): 80.8 %/92.7 % and 73.0 %/87.7 %.
  // The dev cases relearnt the classifier: in dev GD001 lost its first place, DD001 and f056
  // their top three, SG004 gained it; in held-out PF001 gained its first place, AC015 and JA011
  // their top three, GA011 lost it. The new dev cases more than make up for the losses.
  // The PTX-toolchain cases labelled with one of their two ids got both (README, after round
  // forty-three): 81.0 %/92.7 % and 73.8 %/87.7 %; no answer changed, only what counts as right.
  // Round forty-four (`WA`-`WC`, 9 cases kept, 4 scored; 1 of its 1 held-out right blind) with
  // the CUDA runtime's NVLink, MPS and PTX JIT library errors as signatures (I018 and CC010 right
  // first now): 81.0 %/92.7 % and 73.9 %/87.8 %. The new dev cases relearnt the classifier:
  // PF001 and EA020 lost their first place, both answered by reported cases only. With the
  // architecture mismatch of cuBLAS and cuDNN 9 in its signature and its three `WD` threads
  // (right first blind), PF001 and EA020 got it back and m044 (cudnnStatusArchMismatch) gained
  // it: 81.0 %/92.6 % and 74.2 %/87.9 %. Round forty-five (`XE`, 10 cases from a sweep of the
  // frameworks' own setup messages, 8 scored; 1 of its 3 held-out right blind) with the signatures
  // the sweep wrote: 81.0 %/92.6 % and 74.5 %/87.9 %. Held-out g001 gained its first place from
  // Ollama's driver message, whose sweep found it in that thread: it is no blind gain. Harmless
  // start lines (data/harmless_log_lines.csv) no longer make a short log's text: the reported
  // cases reweighed, and DB002 and GD001 lost their first place, IH001 its top three (all three
  // answered by reported cases only): 80.9 %/92.6 % and 74.4 %/87.9 %. TensorRT's, TensorFlow's
  // and CuPy's further messages of the sweep: k014 right first (TensorFlow's "kernel driver does
  // not appear to be running"): 74.5 %/87.9 %. The second sweep's containers, builds and Windows
  // DLLs: JJ012 into the top three (74.5 %/88.0 %).
  // driver.libcuda_unversioned_link_missing joins the taxonomy with round forty-six (`YA`, 6
  // Triton threads; 0 of its 3 held-out right blind, nor the earlier held-out O019): 80.7 %/92.4 %
  // and 74.3 %/87.7 %. With Triton's two messages and ld's "cannot find -lcuda" as signatures all
  // ten cases are right first: 80.9 %/92.6 % and 74.7 %/88.1 %.
  // memory.shm_too_small joins the taxonomy with round forty-seven (`YB`, 15 DataLoader and 3
  // NCCL threads; 3 of its 3 held-out right blind), and 21 NCCL cases whose fix was a larger
  // /dev/shm get it as their secondary (NCCL's failure stays primary, as shared/fixtures/explain
  // labels it): 81.1 %/92.6 % and 74.7 %/87.9 % (dev 1671/1909 of 2061, held-out 766/901 of
  // 1025), with the DataLoader's and NCCL's /dev/shm messages as signatures. Round forty-eight
  // (`YC`, 20 Chinese threads, and `YE`, 20 threads of 2025-2026; 5 of its 10 held-out right
  // blind, 8 in the top three) with a driver API entry point missing from libcuda as a signature
  // and the `also` lists reordered by the dev threads: 81.0 %/92.6 % and 74.7 %/87.8 % (dev
  // 1685/1926 of 2081, held-out 773/909 of 1035). cuda.toolkit_removed_api joins the taxonomy
  // with the round's `YF` (11 threads of code that a newer toolkit no longer compiles, with its
  // four `YE` cases; 1 of the 3 held-out right first blind, 2 in the top three) and four
  // signatures written from the dev threads: 81.1 %/92.7 % and 74.7 %/88.0 % (dev 1698/1940 of
  // 2093, held-out 775/913 of 1038). Round forty-nine (`YH`, 17 threads of the tools the corpus
  // had least of, `YI`, 20 of Windows and Chinese users; 5 of its 7 held-out right blind, 5 in
  // the top three), with seven NCCL and Ollama threads whose fix came from the lines a higher
  // log level showed given env.log_level_hides_errors as their secondary: 80.8 %/92.4 % and
  // 74.7 %/87.7 % (dev 1711/1957 of 2117, held-out 781/916 of 1045). The round's dev cases
  // relearnt the classifier: in held-out c068 and VC002 lost their top three, T005 and HA012
  // rose to first place (all four answered by reported cases). Signatures from its dev part (cl
  // not found by `where cl`, cuDNN ops with no kernel in a TensorFlow without a GPU, a TensorFlow
  // device plugin built for another release, a log's own hint to raise its level): 81.0 %/92.6 %
  // (dev 1714/1960), held-out unchanged. Round fifty (`YJ`, 17 threads of 2025-2026 setups, `YK`,
  // 17 found by sweeping the common messages; 6 of its 9 held-out right blind, 6 in the top
  // three): 80.6 %/92.2 % and 74.5 %/87.5 % (dev 1721/1968 of 2134, held-out 785/922 of 1054).
  // From its dev part, an architecture only the newest toolkit major dropped (compute_50 under
  // CUDA 13) names the dropped architecture third, as often the fix in the dev threads as a
  // toolkit older than the GPU: dev 1721/1969; in held-out CD021 gained its top three, p030 and
  // JE011 (an old nvcc first on the path) lost theirs: 785/921. Round fifty-one (`YL`, 8 threads
  // of containers without the GPU, `YM`, 18 of a wrong copy or build winning; 6 of its 8
  // held-out right blind, 7 in the top three): dev 1734/1987 of 2152, held-out 792/929 of 1062.
  // From its dev part, a line that names one of another line's known causes as surely (the
  // loader resolving libcuda to the compat copy beside error 803) ranks that cause first, and
  // TensorFlow's "DNN library is not found" reads as a cuDNN of another version (3 of its 4 dev
  // threads). Round fifty-two (`YN`, `YO`, `YP`: 38 threads of machines without a GPU or a GPU
  // build, CUDA versions and paths, the Linux driver; 4 of its 5 held-out right blind, 4 in the
  // top three); from its dev part, NVML's own "NVML/RM version mismatch", "fallen off of the
  // bus" and torch.load's "deserialize object on a CUDA device" (a machine without a GPU, 4 of
  // its 9 threads): dev 1766/2016 of 2185 (80.8 %/92.3 %), held-out 798/937 of 1067
  // (74.8 %/87.8 %). Round fifty-three (`YQ`, 11 threads of 2025-2026 setups, Blackwell and CUDA
  // 13, `YR`, 7 of Windows users setting up TensorFlow and Paddle; 4 of its 8 held-out right
  // blind, 7 in the top three), with the container toolkit's hook refused in CDI mode from its
  // dev part: dev 1774/2022 of 2195 (80.8 %/92.1 %), held-out 802/945 of 1075 (74.6 %/87.9 %).
  // Round fifty-four (`YS`, 14 threads of multi-GPU and runtime failures, `YT`, 10 of inference
  // stacks on Windows; 5 of its 9 held-out right blind, 7 in the top three; its two NCCL
  // shared-memory threads then labelled as the corpus' others are, nccl.error with
  // memory.shm_too_small second, which made held-out YS011 right), with XLA's "Failed to
  // determine best cudnn convolution algorithm" read as memory kept from cuDNN: dev 1785/2038 of
  // 2208 (80.8 %/92.3 %), held-out 807/951 of 1084 (74.4 %/87.7 %). Round fifty-five (`YU`, 11
  // threads of local-LLM front ends, `YV`, 14 of hosted and virtualised GPUs, `YW`, 7 of forum
  // threads; 9 of its 10 held-out right blind, 9 in the top three), with deviceQuery's
  // "cudaGetDeviceCount returned 30" and AutoGPTQ's "CUDA Extension not installed." from its dev
  // part: dev 1801/2056 of 2227 (80.9 %/92.3 %), held-out 817/960 of 1094 (74.7 %/87.8 %).
  // Round fifty-six (`YX`, 15 threads of machines without an NVIDIA GPU, `YY`, 11 of Windows DLL
  // failures, `YZ`, 12 of Chinese projects of 2024-2026; 5 of its 7 held-out right blind, 6 in
  // the top three), with an OpenMP entry point a stale libomp140 lacks, STATUS_DLL_NOT_FOUND as
  // an exit status and LMDeploy's bf16 refusal from its dev part: dev 1819/2081 of 2258
  // (80.6 %/92.2 %), held-out 820/966 of 1101 (74.5 %/87.7 %). Round fifty-seven (`ZA`, 12
  // threads of CUDA runtimes of another version or toolkits found first, `ZB`, 3 of WSL2 and
  // Docker Desktop, `ZC`, 7 of copies found first; 7 of its 8 held-out right blind, 7 in the top
  // three), with OpenMP's "Error #15 … already initialized" from its dev part: dev 1827/2092 of
  // 2270 (80.5 %/92.2 %), held-out 826/975 of 1109 (74.5 %/87.9 %). Round fifty-eight (`ZD`, 14
  // threads of cuDNN of another version, `ZE`, 8 of containers and clusters, `ZF`, 8 of drivers
  // older than the build; 8 of its 10 held-out right blind, 10 in the top three), no signature
  // from its dev part (each dev case right, or second as its signature's dev threads order it):
  // dev 1845/2112 of 2288 (80.6 %/92.3 %), held-out 835/984 of 1119 (74.6 %/87.9 %). Round
  // fifty-nine (`ZG`, 10 threads of toolkits found first and ptxas, `ZH`, 6 of WSL 2, `ZI`, 10 of
  // faulty and busy devices; 2 of its 5 held-out right blind, 3 in the top three), with NVML's
  // DRIVER_NOT_LOADED (error 9) read as a Linux driver's NVML inside WSL from its dev part: dev
  // 1857/2127 of 2307, held-out 838/988 of 1124. Round sixty (`ZJ`, 8 threads of JAX and ONNX
  // Runtime, `ZK`, 6 of PaddlePaddle, 5 of them Chinese, `ZL`, 11 of Ollama and bitsandbytes; 6
  // of its 10 held-out right blind, 8 in the top three), with a Windows crash report naming a
  // cuDNN 8 DLL and PaddlePaddle's spelling of CUDA error 30 from its dev part: dev 1866/2140 of
  // 2320 (80.4 %/92.2 %), held-out 844/995 of 1134 (74.4 %/87.7 %). CUDA's error 200 ("device
  // kernel image is invalid") as its own symptom, a driver older than the toolchain first: dev
  // 1868/2140 (t006, B018 right first), held-out unchanged (O004 gained first place, N011 lost
  // it). Rounds sixty-one (`ZM`-`ZO`, 22 threads of TensorRT, extensions built for another
  // torch and Chinese projects of Windows users; 6 of its 8 held-out right blind, 8 in the top
  // three) and sixty-two (`ZP`, `ZR`, `ZS`, 30 of Stable Diffusion front ends, installers that
  // gave the wrong build, clusters and hosted notebooks; 5 of its 9 held-out right blind, 7 in
  // the top three), no signature from their dev parts: dev 1895/2172 of 2350 (80.6 %/92.4 %),
  // held-out 856/1010 of 1151 (74.4 %/87.7 %). Round sixty-three (`ZT`, 10 threads of Slurm's
  // and PBS's GPU requests and GRES setups, `ZU`, 8 of orchestrated containers, `ZV`, 1 of a
  // toolkit found first) with scheduler.gres_misconfigured in the taxonomy (its earlier `+`
  // cases renamed, three of them held-out and right), 5 of its 8 held-out right blind, 7 in the
  // top three; Slurm's refusals and slurmd's GRES errors as signatures from its dev part; round
  // sixty-four (`ZW`, `ZX`, 3 threads): dev 1911/2188 of 2369 (80.7 %/92.4 %), held-out
  // 868/1021 of 1162 (74.7 %/87.9 %). Round sixty-five (`ZY`, 10 threads of the libraries'
  // status messages, `ZZ`, 7 of CUDA errors given as numbers; 3 of its 6 held-out right blind, 5
  // in the top three), then the statuses of data/cuda_library_errors.csv as signatures (the
  // program's own errors as `other`): dev 1918/2201 of 2380 (80.6 %/92.5 %), held-out 872/1027
  // of 1168 (74.7 %/87.9 %). Round sixty-six (`AG`, 4 dev threads of NVML's messages) and NVML's
  // statuses: dev 1921/2203 of 2382 (80.6 %/92.5 %), held-out 871/1027 (74.6 %/87.9 %; EA017,
  // which no signature names, fell to second by 0.0004 of the reported cases' vote). Round
  // sixty-seven (`AH`, 6 threads of PaddlePaddle's CUDA errors and GPUs not found; 3 of its 4
  // held-out right blind, 4 in the top three), then the runtime's statuses as PaddlePaddle, CuPy
  // and THC print them: dev 1921/2203 of 2384 (80.6 %/92.4 %), held-out 876/1033 of 1172
  // (74.7 %/88.1 %; two of the four gained, f054 and ID004, print THC's form, and their lines
  // were seen when the forms were listed). The driver API's statuses (CUresult) in the table and
  // its signatures: held-out 875/1032 (an FFmpeg cuInit CUDA_ERROR_UNKNOWN, the uvm module not
  // loaded, fell behind the table's reading of 999; a CUDA_ERROR_INVALID_HANDLE after a PTX that
  // failed to load put `other` among a TensorFlow log's first three). CUBLAS_STATUS_NOT_INITIALIZED
  // read as memory in every program's format: held-out 874/1032 (PaddlePaddle's form of it, in a
  // thread resolved as another CUDA's cuBLAS, fell to second). Round sixty-eight (`AI`, `AJ`, 7
  // dev threads of those formats; 3 right first blind) moved the reported cases' vote: dev
  // 1923/2208 of 2391, held-out 874/1029 (c068 and FC003 left the first three by a place,
  // VC002, whose only answer was the vote, lost it; EA017 back to first). NVIDIA's Xid catalog
  // (data/nvidia_xid_errors.csv) read for every Xid line, with round sixty-nine (`AK`, 2 threads
  // of Xid faults, neither scored): dev 1924/2209 (AE016's NVLink Xids right first, ZI014's
  // Graphics Exceptions into the top three; AD004's Xid 169, which NVIDIA places nowhere, pushed
  // its third cause out), held-out unchanged. Round seventy (`AL`, 7 threads of missing CUDA and
  // cuDNN libraries and a machine without an NVIDIA GPU; of its 2 held-out, 1 right first blind
  // and both in the top three): dev 1928/2214 of 2396, held-out 875/1031 of 1174. Wrapped lines
  // read for their message (pasted_forms.hpp; WrappedLinesKeepTheAnswer below), the reported
  // cases learnt from the messages too: dev 1928/2215 (b136, CC019 into the top three, YN016 out
  // of it), held-out 875/1032 (c068 into the top three). Round seventy-one (`AM`–`AP`, 18
  // threads: Gloo's and NCCL's network interfaces, Chinese threads, local LLM apps, libraries
  // of another CUDA; of its 6 held-out, 4 right first blind and all 6 in the top three): dev
  // 1936/2222 of 2407, held-out 879/1040 of 1180 (the vote moved PC001's first cause to second,
  // JA001 and FC002 into the top three, AH005 out). Gloo's network errors as a signature (from
  // AM002): held-out 880/1040. log.informational_only joins the taxonomy with round seventy-two
  // (`AQ`-`AT`, 31 threads: lines maintainers called harmless, a log level that hid the error,
  // known release bugs; of its 10 held-out, 1 right first blind, AR008) and its 7 earlier '+'
  // cases: a note's own signature names it where nothing else is (14 of the 22 dev cases right
  // first), and its cases never vote: dev 1950/2237 of 2429, held-out 881/1041 of 1189 (the vote
  // moved c068 and FC002 out of the top three, FC003 into it; C019 out, DF001 and YN016 in).
  // Round seventy-three (`AU`, 11 threads of notes called harmless; of its 4 held-out, 1 right
  // first blind), its notes' signatures and a note's line naming no other cause: dev 1957/2244
  // of 2436 (AR007 right first), held-out 882/1042 of 1193. Three known-bug causes join the
  // taxonomy (framework.known_bug, driver.known_bug, container.toolkit_known_bug; their 45
  // earlier '+' cases and round seventy-four, `AW`, 4 dev threads), with
  // data/known_release_bugs.csv: most of these logs do not print the release, and without it the
  // line's other readings come first, so the shares fall while no case right before is lost: dev
  // 1965/2253 of 2471 (6 of the 35 new right first, 9 in the top three), held-out 884/1046 of 1207
  // (of its 14 new, none right first and 1 in the top three). Three more rows found in
  // changelogs and maintainers' words (NVIDIA Container Toolkit 1.17.0's IMEX channels,
  // bitsandbytes' paged optimizers, PyTorch 2.5.0's cuDNN attention): held-out 885 (AT002, a
  // held-out thread of the IMEX bug, right first; the row came from a search of the toolkit's
  // sources, not from that thread).
  if (!testing::kEveryInput) return;
  EXPECT_GE(scores["dev"].share(scores["dev"].top1), 0.79) << misses;
  EXPECT_GE(scores["dev"].share(scores["dev"].top3), 0.91);
  EXPECT_GE(scores["heldout"].share(scores["heldout"].top1), 0.72);
  EXPECT_GE(scores["heldout"].share(scores["heldout"].top3), 0.86);
  // A share falls when hard cases join; the count of cases right never may: a signature change
  // that loses a case that passed fails here even when new cases hide it in the share.
  EXPECT_GE(scores["dev"].top1, 1965u) << misses;
  EXPECT_GE(scores["dev"].top3, 2253u);
  EXPECT_GE(scores["heldout"].top1, 885u);
  EXPECT_GE(scores["heldout"].top3, 1046u);
}

// A log as users paste it: the error among the program's other output (pip, Python warnings,
// progress bars), here the lines of tests/explain_corpus/noise_<platform>.txt before and after
// it. Those lines name no fault of the GPU stack, so the answer should stay the excerpt's; the
// floors are the counts right on the noisy logs, printed beside the plain ones.
std::pair<std::string, std::string> noise_for(const std::string& platform) {
  static const auto read = [](const char* name) {
    std::ifstream in(std::string(GPUVET_EXPLAIN_CORPUS) + "/" + name);
    EXPECT_TRUE(in) << name;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t cut = text.find("--8<--\n");
    EXPECT_NE(cut, std::string::npos) << name << ": no --8<-- line between before and after";
    if (cut == std::string::npos) return std::make_pair(text, std::string());
    return std::make_pair(text.substr(0, cut), text.substr(cut + 7));
  };
  static const auto linux_noise = read("noise_linux.txt");
  static const auto windows_noise = read("noise_windows.txt");
  return platform == "windows" ? windows_noise : linux_noise;
}

TEST(ExplainCorpus, NoiseAroundTheLogKeepsTheAnswer) {
  std::map<std::string, Score> plain, noisy;
  std::string moved;
  for (const auto& row : cases_under_test()) {
    const std::string primary = text_of(row, "primary");
    if (!taxonomy().count(primary)) continue;
    const auto [before, after] = noise_for(text_of(row, "platform"));
    const std::string log = before + text_of(row, "log") + "\n" + after;
    const auto causes =
        testing::explain_with(log, std::nullopt, &reported_cases_for(row), text_of(row, "url"));
    const std::string split = text_of(row, "split");
    const bool was = plain[split].add(explain_case(row), wanted_of(row));
    const bool is = noisy[split].add(causes, wanted_of(row));
    if (was && !is) {
      moved += "  " + text_of(row, "id") + " " + split + " " + primary + " -> " +
               (causes.empty() ? std::string("nothing") : causes[0].id) + "\n";
    }
  }
  for (const auto& [split, score] : noisy) {
    std::printf(
        "explain corpus %s with noise around: top-1 %zu, top-3 %zu of %zu (plain %zu, %zu)\n",
        split.c_str(), score.top1, score.top3, score.total, plain[split].top1, plain[split].top3);
  }
  std::printf("right first plain, not with noise:\n%s", moved.c_str());
  // First measured with these lines: dev 1538/1794 and held-out 670/810 of 1965/981 (plain
  // 1574/1817 and 716/860): Python's deprecation and dependency warnings counted as error lines,
  // and a short log without one was compared whole, noise and all. A warning now counts only
  // where it names the GPU stack, and such a log is compared by its lines that do. TensorFlow's
  // start-up INFO lines joined the noise next (oneDNN's "round-off errors", the CPU instructions
  // line): held-out 693/850 at first, as they counted as error lines and as lines naming the
  // stack; a TensorFlow INFO line now counts as an error line only with an error word and a
  // word of the stack, and a short log is compared without them.
  // With round forty-seven and memory.shm_too_small as the NCCL cases' secondary: dev 1667/1907,
  // held-out 764/899. With round forty-eight: dev 1681/1924, held-out 771/907;
  // with cuda.toolkit_removed_api: dev 1694/1938, held-out 773/911. With round forty-nine and
  // its signatures: dev 1710/1958, held-out 779/914. With round fifty and its rule: dev
  // 1717/1967, held-out 783/919. With rounds fifty-one and fifty-two and their signatures: dev
  // 1762/2013, held-out 796/935; with round fifty-three: dev 1770/2019, held-out 800/943; with
  // round fifty-four: dev 1781/2035, held-out 805/949; with round fifty-five: dev 1797/2053,
  // held-out 815/958; with round fifty-six: dev 1815/2078, held-out 818/964; with round
  // fifty-seven: dev 1823/2089, held-out 824/973; with round fifty-eight: dev 1841/2109,
  // held-out 833/982; with rounds fifty-nine and sixty: dev 1862/2137, held-out 842/994;
  // with rounds sixty-one and sixty-two: dev 1891/2169, held-out 854/1009; with rounds
  // sixty-three and sixty-four and scheduler.gres_misconfigured: dev 1907/2185, held-out 866/1020;
  // with rounds sixty-five to sixty-seven and the libraries' statuses: dev 1917/2199, held-out
  // 874/1032; with the driver API's statuses: held-out 873/1031; with the runtime's texts in
  // other programs' formats: dev 1917/2200; with CUBLAS_STATUS_NOT_INITIALIZED read as memory in
  // every format: held-out 872/1031; with round sixty-eight: dev 1919/2205, held-out 872/1028;
  // with the Xid catalog: dev 1920/2206. With round seventy and wrapped lines read for their
  // message: dev 1924/2212, held-out 873/1031. With round seventy-one and Gloo's network
  // errors: dev 1932/2219, held-out 878/1039. With round seventy-two and log.informational_only
  // (the noise's TensorFlow notes are such lines, the answer only where nothing else is): dev
  // 1947/2235, held-out 880/1041. With round seventy-three: dev 1954/2242, held-out 882/1043.
  // With the known-bug causes: dev 1962/2251, held-out 884/1047; with three more rows,
  // held-out 885/1047.
  if (testing::kEveryInput) {
    EXPECT_GE(noisy["dev"].top1, 1962u) << moved;
    EXPECT_GE(noisy["dev"].top3, 2251u);
    EXPECT_GE(noisy["heldout"].top1, 885u);
    EXPECT_GE(noisy["heldout"].top3, 1047u);
  }
  // The noise alone is no error of the GPU stack: TensorFlow's start-up notes in it only inform.
  const auto [before, after] = noise_for("linux");
  for (const auto& c :
       testing::explain_with(before + after, std::nullopt, &SimilarCases::embedded(), ""))
    EXPECT_EQ(c.id, kInformationalCause);
}

// A log as what carried it wraps each line (src/explain/pasted_forms.hpp): Docker's json-file
// records, Kubernetes', the journal's and a CI runner's prefixes, docker compose's, torchrun's, a
// quoted reply, a web page's entities. Each held-out case is wrapped in one of them in turn and
// must be explained as it is plain. Before the lines were unwrapped, the held-out third lost up to
// 7 cases right first (Docker's records) and 16 in the top three; the dev split up to 49
// (entities).
std::string html_escaped(const std::string& line) {
  static const std::map<char, std::string> kEntities = {
      {'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}, {'"', "&quot;"}, {'\'', "&#39;"}};
  std::string out;
  for (const char c : line) {
    const auto entity = kEntities.find(c);
    out += entity == kEntities.end() ? std::string(1, c) : entity->second;
  }
  return out;
}

std::string wrapped_line(const std::string& line, size_t form) {
  // Forms 1 to 6 only put a prefix before the line.
  static const char* const kPrefixes[] = {
      "2024-05-01T12:00:00.123456789Z stderr F ",  // Kubernetes (CRI)
      "Oct 23 10:22:21 gpu-node ollama[64294]: ",  // the journal
      "ollama-1  | ",                              // docker compose
      "[rank0]: ",                                 // torchrun
      "> ",                                        // a quoted reply
      "2024-05-01T12:00:00.1234567Z ",             // a CI runner
  };
  constexpr size_t kForms = std::size(kPrefixes) + 2;
  form %= kForms;
  if (form == 0)
    return R"({"log":)" + nlohmann::json(line + "\n").dump() +
           R"(,"stream":"stderr","time":"2024-05-01T12:00:00.1Z"})";
  if (form == kForms - 1) return html_escaped(line);
  return kPrefixes[form - 1] + line;
}

std::string wrapped(const std::string& log, size_t form) {
  std::string out;
  for (size_t pos = 0; pos <= log.size();) {
    const size_t end = std::min(log.find('\n', pos), log.size());
    out += wrapped_line(log.substr(pos, end - pos), form) + "\n";
    pos = end + 1;
  }
  return out;
}

TEST(ExplainCorpus, WrappedLinesKeepTheAnswer) {
  size_t compared = 0;
  std::string changed;
  for (const auto& row : cases_under_test()) {
    if (text_of(row, "split") != "heldout" || !taxonomy().count(text_of(row, "primary"))) continue;
    const std::string log = wrapped(text_of(row, "log"), compared++);
    const auto plain = explain_case(row);
    const auto causes =
        testing::explain_with(log, std::nullopt, &reported_cases_for(row), text_of(row, "url"));
    std::vector<std::string> before, after;
    for (size_t i = 0; i < 3; ++i) {
      if (i < plain.size()) before.push_back(plain[i].id);
      if (i < causes.size()) after.push_back(causes[i].id);
    }
    if (before != after) changed += "  " + text_of(row, "id") + "\n";
  }
  std::printf("explain corpus held-out, wrapped: %zu cases compared\n", compared);
  EXPECT_TRUE(changed.empty()) << "explained otherwise when wrapped:\n" << changed;
}

// A console that breaks long lines at its width (cmd.exe copies at its buffer's width): each
// held-out case with its lines cut every 80 bytes. Pieces of three or more are read joined
// (Collector::follow_wrap); a line cut in two is matched by the signatures as a pair, and the
// reported cases compare it joined where the cut fell inside a word. Before the joining of
// pieces (2026-12-07): 860/1023 right first and in the top three (plain 875/1032); with three
// pieces or more joined, 871/1026; with two pieces cut inside a word too, 875/1033 (the dev
// split, cut alike: 1914/2205 before, 1915/2207 after, plain 1928/2215). With round
// seventy-one: 879/1039 (plain 880/1040). With round seventy-two: 880/1041 (plain 881/1041);
// with round seventy-three: 881/1042 (plain 882/1042); with the known-bug causes: 883/1047
// (plain 884/1046), 884/1047 with three more rows (plain 885/1046).
TEST(ExplainCorpus, LinesCutAtAConsolesWidthKeepMostAnswers) {
  Score cut;
  for (const auto& row : cases_under_test()) {
    if (text_of(row, "split") != "heldout" || !taxonomy().count(text_of(row, "primary"))) continue;
    const std::string log = text_of(row, "log");
    std::string pieces;
    for (size_t pos = 0; pos <= log.size();) {
      const size_t end = std::min(log.find('\n', pos), log.size());
      for (size_t at = pos; at < end; at += 80)
        pieces += log.substr(at, std::min<size_t>(80, end - at)) + "\n";
      pos = end + 1;
    }
    cut.add(
        testing::explain_with(pieces, std::nullopt, &reported_cases_for(row), text_of(row, "url")),
        wanted_of(row));
  }
  std::printf("explain corpus held-out, lines cut at 80: top-1 %zu, top-3 %zu of %zu\n", cut.top1,
              cut.top3, cut.total);
  if (!testing::kEveryInput) return;
  EXPECT_GE(cut.top1, 884u);
  EXPECT_GE(cut.top3, 1047u);
}

// Every real log explained with the facts of machines it does not come from, as on a build
// server or a helper's laptop: a log that names another GPU, driver, framework or Python
// environment is ranked as with --no-facts, and so is one that names nothing of its machine. Only
// a log that shows this machine (none here, unless a case names the same GPU and driver) may move.
TEST(ExplainCorpus, AnotherMachinesFactsLeaveTheAnswer) {
  const auto first = [](const std::vector<Cause>& c) { return c.empty() ? "nothing" : c[0].id; };
  // A build server without a GPU (what CI runs on), and a Windows desktop with one.
  struct Machine {
    std::string scenario;
    std::unique_ptr<sys::ReplaySystem> system;
    pipeline::Report report;
    std::map<std::string, size_t> states;
    std::string moved;
  };
  std::vector<Machine> machines;
  for (const char* scenario : {"linux_no_gpu_stub_toolkit", "windows10_gtx1060_tf21_all_green"}) {
    auto snapshot = sys::load_snapshot_file(std::string(GPUVET_SCENARIO_DIR) + "/" + scenario +
                                            "/snapshot.json");
    ASSERT_TRUE(snapshot) << scenario;
    auto system = std::make_unique<sys::ReplaySystem>(std::move(*snapshot));
    auto report = pipeline::diagnose(*system, testing::embedded_kb(), testing::messages());
    ASSERT_TRUE(report) << scenario;
    machines.push_back({scenario, std::move(system), std::move(*report), {}, {}});
  }
  // Each log is read once; its causes are reasoned about without facts and with each machine's.
  size_t logs = 0;
  for (const auto& row : cases_under_test()) {
    ++logs;
    Collector collector(testing::signatures(), &reported_cases_for(row), text_of(row, "url"));
    auto read = read_log_text(
        text_of(row, "log"),
        [&](size_t n, std::string_view line) { return collector.on_line(n, line); },
        [&](std::string_view lines) { return collector.first_candidate(lines); });
    ASSERT_TRUE(read.ok());
    const auto causes = collector.causes();
    const std::string plain = first(reason(causes, testing::embedded_kb(), testing::messages(),
                                           std::nullopt, collector.log_facts()));
    for (auto& machine : machines) {
      const auto decided =
          facts_for_log(collector.log_facts(), machine.report.facts, machine.report.findings,
                        testing::embedded_kb(), testing::messages(), machine.system.get());
      const auto state = decided.use.state;
      ++machine.states[state == FactsUse::State::used            ? "used"
                       : state == FactsUse::State::other_machine ? "other"
                                                                 : "unknown"];
      if (state == FactsUse::State::used) continue;
      const std::string answer = first(reason(causes, testing::embedded_kb(), testing::messages(),
                                              decided.machine, collector.log_facts()));
      if (answer != plain)
        machine.moved += "  " + text_of(row, "id") + ": " + plain + " -> " + answer + "\n";
    }
  }
  for (auto& machine : machines) {
    std::printf("%s: of %zu real logs, %zu show this machine, %zu another, %zu nothing to tell\n",
                machine.scenario.c_str(), logs, machine.states["used"], machine.states["other"],
                machine.states["unknown"]);
    EXPECT_TRUE(machine.moved.empty())
        << machine.scenario << ": the facts of another machine moved\n"
        << machine.moved;
    // Those that do show it (its GPU, nothing of another) are few.
    EXPECT_LE(machine.states["used"], 10u) << machine.scenario;
  }
}

// What a log does not say is left out of its explanation, not written as "unknown" (the version
// a library name does not tell, a symbol a Windows error does not name): every cause of the first
// three for every real log.
TEST(ExplainCorpus, NoExplanationSaysUnknown) {
  const std::string unknown = testing::messages().text("report.unknown_value");
  std::string said;
  for (const auto& row : cases_under_test()) {
    const auto causes = explain_case(row);
    for (size_t i = 0; i < std::min<size_t>(3, causes.size()); ++i) {
      std::string texts = causes[i].why;
      for (const auto& fix : causes[i].fix)
        texts += "\n" + fix;
      if (texts.find(unknown) != std::string::npos)
        said += "  " + text_of(row, "id") + " " + causes[i].id + ": " + texts + "\n";
    }
  }
  EXPECT_TRUE(said.empty()) << said;
}

}  // namespace
}  // namespace gpuvet::explain
