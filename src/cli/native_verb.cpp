// The hidden verb of the native-query child (system/native_query.hpp): for the parent to read,
// not a user.
#include <CLI/CLI.hpp>
#include <memory>

#include "cli/common.hpp"
#include "cli/verb.hpp"
#include "platform/terminal.hpp"
#include "system/native_query.hpp"

namespace gpuvet::cli {

namespace {

struct NativeArgs {
  std::string library;
  bool serve = false;
};

int run_native_query(const NativeArgs& args) {
  if (args.serve) return sys::serve_native_queries();
  // Past the output net, byte for byte: the parent parses it.
  platform::write_stdout(std::string("@result\n") +
                         sys::run_native_query(args.library.empty()
                                                   ? std::nullopt
                                                   : std::optional<std::string>(args.library)));
  return kExitOk;
}

}  // namespace

VerbRun declare_native_query(CLI::App& command) {
  auto args = std::make_shared<NativeArgs>();
  command.add_option("--load", args->library);
  command.add_flag(sys::kNativeServeFlag, args->serve);
  return [args] { return run_native_query(*args); };
}

}  // namespace gpuvet::cli
