// The verb table: one line per verb.
#include "cli/verb.hpp"

#include "system/native_query.hpp"

namespace gpuvet::cli {

const std::vector<Verb>& verbs() {
  static const std::vector<Verb> table = {
      {"check", "Check every layer in fault-tree order (the default verb)", declare_check},
      {"verify", "Prove the GPU computes: a kernel, copies and a GEMM, checked (a few seconds)",
       declare_verify},
      {"bench", "Measure bandwidth, GEMM and convolution against the GPU's own peak",
       declare_bench},
      {"snapshot", "Record what the probes read on this machine, secrets redacted",
       declare_snapshot},
      {"which",
       "Which file the dynamic loader would load for each library name, and the copies it "
       "shadows",
       declare_which},
      {"explain", "From an error message or a whole log to the real cause, checked on this machine",
       declare_explain},
      {"plan",
       "The framework, CUDA, cuDNN, Python and driver versions that go together, with steps",
       declare_plan},
      {"fix", "Repair what is safe to repair at its origin: a dry run unless --apply, journaled",
       declare_fix},
      {"undo", "Take a fix back from the journal, byte for byte", declare_undo},
      {"fleet",
       "Many machines: collect snapshots through Slurm, then report broken nodes and drift",
       declare_fleet},
      {"kb", "Ask the knowledge base: a GPU, a CUDA or cuDNN version, a framework's builds",
       declare_kb},
      {"help", "A verb's options and exit status: gpuvet help [VERB [SUB-VERB]]", declare_help},
      {"completion", "Print a completion script: bash, zsh, fish or powershell",
       declare_completion},
      // Hidden: the child process of a native query (system/native_query.hpp).
      {sys::kNativeQueryVerb, "", declare_native_query},
  };
  return table;
}

}  // namespace gpuvet::cli
