#pragma once
// `gpuvet explain`: from an error message or a whole log to the causes, ranked, interpreted with
// the knowledge base, and confirmed or ruled out by this machine's facts.
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checks/finding.hpp"
#include "core/result.hpp"
#include "explain/signatures.hpp"
#include "explain/similar_cases.hpp"
#include "kb/kb.hpp"
#include "kb/messages.hpp"

namespace gpuvet::explain {

inline constexpr std::string_view kExplainSchema = "gpuvet.explain/1";
// Evidence lines kept per cause: the first ones the log shows.
inline constexpr size_t kMaxEvidence = 5;
// Lines kept that may name the device.
inline constexpr size_t kMaxDeviceLines = 4;
// Distinct Xid codes kept per cause.
inline constexpr size_t kMaxXidCodes = 64;
// An alternative's confidence against its signature's weight, compounded down its `also` list.
inline constexpr double kAlternativeShare = 0.6;

struct Evidence {
  size_t line = 0;
  std::string text;
};

struct Cause {
  std::string id;  // a taxonomy id
  double confidence = 0;
  bool symptom_only = true;  // every signature that matched is a symptom of something else
  // Ranked after every cause a line names: threads with the same message resolved to it (a
  // signature's `also`), or a line names it less specifically (below).
  bool alternative = false;
  // An alternative that a line does name, by a signature less specific than another the same
  // line matches (NCCL's hint to rerun with NCCL_DEBUG=INFO beside its "unhandled system error"),
  // or a reading of the line as likely as another (an architecture only the newest CUDA dropped).
  bool named_less_specifically = false;
  // The log's platform is one where this cause cannot happen.
  bool off_platform = false;
  size_t first_line = 0;
  std::vector<Evidence> evidence;
  std::map<std::string, std::string> captures;  // from the first hits that had them
  std::vector<std::string> signatures;
  // The causes that threads with its lines' message found instead (its signatures' `also`): a
  // line naming one of them says which of the readings holds (readings_of_other_lines()).
  std::set<std::string> other_readings;
  // Every Xid code the driver's Xid lines name (signature nvrm_xid), leading zeros dropped: a
  // flood of one code must not hide another after the evidence's first lines. At most
  // kMaxXidCodes.
  std::set<std::string> xid_codes;
  // The capability of the device the log names ("… name: NVIDIA GeForce RTX 3060 … compute
  // capability: 8.6", "… with CUDA capability sm_120 …"), resolved once in reason().
  std::vector<std::string> device_lines;
  // The library a line that names this cause says could not be loaded, by its bare name
  // (libcublas.so.12, cudart64_110.dll): what this machine's loader is asked (missing_library).
  std::string unloaded_library;
  std::string why;
  std::vector<std::string> fix;
  std::optional<bool> confirmed_by_facts;
  // No signature names it: the log's error lines resemble reported cases resolved as it (the
  // explain corpus' nearest cases); `reports` are the nearest of them, `similar_votes` how many
  // of the neighbours voted for it.
  bool similar = false;
  size_t similar_votes = 0;
  // No line names it: the checks of the log's own machine find it (explain.machine_only).
  bool machine_only = false;
  std::vector<SimilarReport> reports;
};

// What a log says about the machine that printed it, beside its errors: the platforms its paths
// and libraries point to (windows, linux, wsl, macos), and versions it prints.
struct LogFacts {
  std::set<std::string> platforms;
  struct Seen {
    std::string version;
    Evidence line;  // where the log printed it
  };
  // The first each the log prints: tensorflow -> 2.12.0, torch, driver (the NVIDIA driver's
  // 535.104.05), cudnn (the cuDNN loaded, dotted).
  std::map<std::string, Seen> versions;
  // Framework distributions a pip listing in the log names (pip list, pip freeze, collect_env's
  // "[pip3] …"): onnxruntime-gpu -> 1.16.3, the first line that lists it.
  std::map<std::string, Seen> listed;
  // A framework's device line giving the GPU's compute capability and the CUDA runtime the
  // framework runs (PaddlePaddle's "GPU Compute Capability: 8.6, Driver API Version: 11.2,
  // Runtime API Version: 10.2"): the first.
  struct RuntimeOnDevice {
    std::string cc;
    std::string cuda;
    Evidence line;
  };
  std::optional<RuntimeOnDevice> runtime_on_device;
  // The framework modules a traceback's files under site-packages run (torch, paddle, jaxlib).
  std::set<std::string> modules;
  // Lines that name the log's GPUs (a framework's device line, nvidia-smi's), up to
  // kMaxDeviceLines.
  std::vector<std::string> device_lines;
  // The Python environments the log's paths are in: their site-packages directories as written
  // (in `version`), up to kMaxLogEnvironments.
  std::vector<Seen> site_packages;
  // The host names a shell prompt or a system journal line in the log's head shows (in
  // `version`), up to kMaxLogEnvironments.
  std::vector<Seen> hosts;
};

// The host a line shows it was printed on: a shell prompt's ("user@host:~/dir$ …", "(venv)
// user@host:/x# …", "[user@host dir]$ …") or a system journal line's ("Jan 08 19:28:33 host
// ollama[1234]: …"); none for any other line.
std::optional<std::string_view> host_of_line(std::string_view line);
inline constexpr size_t kMaxLogEnvironments = 4;

// The platform the log comes from: WSL when anything says so, else the only one its lines point
// to; empty when they point nowhere or to several.
std::string log_platform(const LogFacts& log);

// Whether a machine's facts can speak for a log: unknown platforms agree with anything; a WSL log
// is a WSL machine's, never a plain Linux one's.
bool same_platform(const std::string& log_platform, const std::string& machine_platform);

// Whose facts an explanation used: none (--no-facts); this machine's or a snapshot's, where the
// log shows it comes from that machine; none because it shows another machine (another platform,
// GPU, driver, framework, cuDNN or Python environment); or only beside the causes, where the log
// shows nothing to tell (explain/same_machine.hpp).
struct FactsUse {
  enum class State { none, used, other_machine, unknown_machine };
  State state = State::none;
  std::string log_platform;      // empty when the log does not say
  std::string machine_platform;  // empty without facts
  std::string note;              // why, in the user's language: what the log and the facts show
};

// Collects the hits of one log, line by line, in bounded memory.
class Collector {
 public:
  // With `similar`, causes() adds what the reported cases nearest the log's error lines were
  // resolved as, after what the signatures name; never those of the thread `exclude_url` (the
  // corpus test scores each of its cases so).
  explicit Collector(const Signatures& signatures, const SimilarCases* similar = nullptr,
                     std::string exclude_url = {})
      : signatures_(signatures), similar_(similar), exclude_url_(std::move(exclude_url)) {}
  bool on_line(size_t line_number, std::string_view line);
  // The fast path's filter: where in many lines a signature, or a line naming the device, could
  // first be. Lines before it are never given to on_line.
  size_t first_candidate(std::string_view text) const;
  std::vector<Cause> causes() const;
  const LogFacts& log_facts() const { return log_facts_; }

 private:
  const Signatures& signatures_;
  const SimilarCases* similar_;
  std::string exclude_url_;
  std::string error_text_;  // the error lines, up to kMaxErrorTextBytes
  std::string short_text_;  // every line, while the log is short (kShortLogBytes)
  std::string gpu_text_;    // of those, the lines that name the GPU stack
  size_t text_bytes_ = 0;
  void keep_for_similar(std::string_view line);
  void add_similar(std::vector<Cause>& causes) const;
  // A message a paste or a terminal wrapped over two lines ("Could not find \n registered
  // platform") is matched again joined, in the head of the log only: what users paste is short,
  // and a big log keeps its fast path after it.
  static constexpr size_t kWrappedHeadBytes = 64 * 1024;
  static constexpr size_t kWrappedLineBytes = 400;
  size_t head_bytes_ = 0;
  std::string previous_;  // the last line of the head, when short enough to be half a message
  size_t previous_number_ = 0;
  std::set<size_t> previous_hits_;     // the signatures it matched alone
  bool previous_console_cut_ = false;  // whether it was as wide as a console
  // Records the hits of `line` but those of `already` (signatures matched elsewhere); returns the
  // signatures it matched.
  std::set<size_t> match(size_t line_number, std::string_view line,
                         const std::set<size_t>& already = {});
  // `written_width`: the line's size as written, before its wrapping was peeled.
  std::set<size_t> match_wrapped(size_t line_number, std::string_view line, size_t written_width,
                                 const std::set<size_t>& hits);
  // A long line a console broke at its width (cmd.exe's copy breaks lines at its buffer's
  // width: 80, or 120 since Windows 10): every piece but the last that wide. Joined as written
  // and unwrapped (pasted_forms.hpp), it is matched again for what no piece or pair of pieces
  // said alone, when it has three pieces or more (two are match_wrapped's), in the head only;
  // the reported cases compare it instead of its pieces (two pieces too, when cut in a word). Lines
  // of other widths are left alone: equally long lines of a log (its own format, a line repeated)
  // are no pieces of one.
  static constexpr size_t kMaxWrapPieces = 16;
  static constexpr std::array<size_t, 2> kConsoleWidths = {80, 120};
  static bool is_console_width(size_t width) {
    return std::find(kConsoleWidths.begin(), kConsoleWidths.end(), width) != kConsoleWidths.end();
  }
  struct WrapRun {
    std::string text;  // the pieces so far, joined
    size_t width = 0;
    size_t first_line = 0;
    size_t last_line = 0;
    size_t pieces = 0;
    std::set<size_t> hits;  // what the pieces matched alone
    // What the reported cases were to compare before its first piece: the run replaces its
    // pieces there, joined.
    size_t error_text_size = 0;
    size_t short_text_size = 0;
    size_t gpu_text_size = 0;
    size_t text_bytes = 0;
  };
  WrapRun run_;
  // Whether `written` was the last piece of a run that was joined (and is kept for the reported
  // cases in it); `wrapped` when it has a wrapping of its own (pasted_forms.hpp).
  bool follow_wrap(size_t line_number, std::string_view written, bool wrapped,
                   const std::set<size_t>& hits);
  bool end_run();
  // Lengthens the captures of `hits`' causes shown in lines first_line to last_line that
  // `message`, those lines joined, has longer.
  void complete_cut_captures(const std::string& message, const std::set<size_t>& hits,
                             size_t first_line, size_t last_line);
  // A shell prompt's or journal line's host, in the head only: what shows whose log it is.
  void record_host(size_t line_number, std::string_view line);
  void record(Cause& cause, const Signature& sig, size_t line_number, std::string_view line,
              const std::map<std::string, std::string>& captures) const;
  void record_fact(const Signature& sig, size_t line_number, std::string_view line,
                   const std::map<std::string, std::string>& captures);
  void record_installed(std::string_view words, bool removed, size_t line_number,
                        std::string_view line);
  void add_alternative(const std::string& id, const Signature& sig, double share,
                       size_t line_number, std::string_view line,
                       const std::map<std::string, std::string>& captures);
  std::map<std::string, Cause> by_cause_;
  std::map<std::string, Cause> alternatives_;
  LogFacts log_facts_;
};

// The library a cause's line says a program could not load, as the loader looks it up (a bare
// file name: libcublas.so.12, cudart64_110.dll); none for a path, whose file was found and failed
// for another reason, a library of another kind (cuDNN's for a CUDA cause), a line that says
// something else of it (an undefined symbol), or a cause of another kind.
std::optional<std::string> missing_library(const Cause& cause);

// What the checks found on the machine (live or a snapshot); absent with --no-facts.
struct MachineFindings {
  std::vector<Finding> findings;
  std::string platform;  // windows, linux, wsl; empty when unknown
  // Whether the facts may rank the causes. False where the log shows nothing that tells whether
  // it comes from this machine: a cause the checks also find then only says so.
  bool ranks = true;
  // What this machine's loader does with the libraries the log could not load (a bare name:
  // libcublas.so.12, cudart64_110.dll), keyed by the name as the log wrote it: the file it loads,
  // or none. A name missing here is one nobody looked up: it decides nothing.
  std::map<std::string, std::optional<std::string>> libraries = {};
  // The CUDA toolkits the facts found: version and root.
  std::vector<std::pair<std::string, std::string>> cuda_installs = {};
};

// Interprets captures with the knowledge base (cudart64_101.dll is CUDA 10.1), turns a runtime
// missing beside another CUDA on the path into a version mismatch, confirms or rules out each cause
// with the facts, writes why and fix, and ranks: root causes in fault-tree order (lower layers
// first), then symptoms, then the alternatives no line names; contradicted causes last.
// The log's own facts decide where they can: a TensorFlow newer than the last with GPU support on
// native Windows, printed in a Windows log with no GPU found, is that limit; a cause that cannot
// happen on the log's platform (a Windows DLL in a Linux log) ranks after those that can, and one
// that only happens there is no longer a mere alternative.
std::vector<Cause> reason(std::vector<Cause> causes, const kb::Kb& kb, const kb::Messages& messages,
                          const std::optional<MachineFindings>& machine, const LogFacts& log = {});

}  // namespace gpuvet::explain
