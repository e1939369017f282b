#pragma once
// Rendering of `gpuvet kb` answers.
#include <string>
#include <vector>

#include "kb/messages.hpp"
#include "kb/queries.hpp"

namespace gpuvet::report {

struct KbSection {
  std::string table;  // data/<table>.csv
  std::vector<kb::Row> rows;
};

// One line of the verdict a `kb` answer opens with: a catalog message and its arguments (an empty
// argument prints as "unknown" in the user's language), and what it means for the user.
struct VerdictLine {
  std::string status;  // ok | no | unknown | info
  std::string key;     // data/messages: kb.verdict.*
  kb::MessageArgs args;
  int indent = 0;  // 1: a detail of the line above
};

struct KbAnswer {
  std::string kb_version;
  std::string topic;                 // gpu | cuda | cudnn | framework
  std::string argument;              // as the user gave it
  std::vector<std::string> matched;  // gpu: the name(s) matched
  std::vector<std::string> closest;  // gpu: nearest names when nothing matched
  // gpu: the products a partial name may mean, and the compute capability all of the matched
  // GPUs share (empty when unknown or they differ)
  std::vector<std::string> candidates;
  std::string compute_capability;
  std::string matched_by;  // gpu: name | alias | pci_id | board | chip | prefix | words
  std::vector<KbSection> sections;
  std::vector<VerdictLine> verdict;  // what the rows mean, first in the text output
  bool show_sources = false;         // --sources: the rows, their notes and sources too
};

std::string render_kb_json(const KbAnswer& answer);
std::string render_kb_text(const KbAnswer& answer, const kb::Messages& messages, bool color);

}  // namespace gpuvet::report
