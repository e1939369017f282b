// The verb table: one line per verb. What each says in --help is in the catalogs (help.<verb>).
#include "cli/verb.hpp"

#include "system/native_query.hpp"

namespace gpuvet::cli {

const std::vector<Verb>& verbs() {
  static const std::vector<Verb> table = {
      {"check", false, declare_check},
      {"verify", false, declare_verify},
      {"bench", false, declare_bench},
      {"snapshot", false, declare_snapshot},
      {"which", false, declare_which},
      {"explain", false, declare_explain},
      {"plan", false, declare_plan},
      {"fix", false, declare_fix},
      {"undo", false, declare_undo},
      {"fleet", false, declare_fleet},
      {"kb", false, declare_kb},
      {"help", false, declare_help},
      {"completion", false, declare_completion},
      // Hidden: the child process of a native query (system/native_query.hpp).
      {sys::kNativeQueryVerb, true, declare_native_query},
  };
  return table;
}

}  // namespace gpuvet::cli
