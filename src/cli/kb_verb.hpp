#pragma once
// The `kb` verb: questions to the knowledge base, answered from its tables with their sources.
#include <string>

#include "kb/kb.hpp"
#include "kb/messages.hpp"

namespace gpuvet::cli {

struct KbArgs {
  std::string topic;     // gpu | cuda | cudnn | framework
  std::string argument;  // the name, version or FRAMEWORK[==VERSION]
  bool json = false;
  bool sources = false;  // --sources: the rows behind the verdict, with their notes and sources
};

// Exit status: 0 answered, 2 unknown name/version or a broken knowledge base.
int run_kb(const KbArgs& args, const kb::Kb& kb, const kb::Messages& messages, bool color);

}  // namespace gpuvet::cli
