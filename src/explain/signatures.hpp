#pragma once
// The error signatures of data/explain_signatures.csv, compiled once into RE2 (linear time, no
// backtracking) and matched line by line: an RE2::Set finds which signatures a line can match,
// only those are run again for their named captures.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "kb/kb.hpp"

namespace gpuvet::explain {

struct Signature {
  std::string id;
  std::string
      cause;  // a taxonomy id; for a fact row, the fact (platform.windows, version.tensorflow)
  bool symptom = false;
  // Names no cause: what the log says about its machine (a Windows path, a TensorFlow version).
  bool fact = false;
  double weight = 0;
  std::string pattern;
  // Other causes threads found behind the same message, most frequent first: ranked after the
  // causes the log names, so a reader sees what else to rule out.
  std::vector<std::string> also;
  std::vector<std::string> literals;  // one of them is in every match (lower case)
  std::string example;
  std::string near_miss;
  std::string source;
};

struct SignatureHit {
  size_t signature = 0;  // index into Signatures::all()
  std::map<std::string, std::string> captures;
};

// The same pattern for `grep -E -i` (the explain benchmark's baseline): named and non-capturing
// groups become plain groups, inline case flags are dropped (grep -i), \d becomes [0-9].
std::string to_grep_pattern(std::string_view re2_pattern);

class Signatures {
 public:
  // Compiles every row; a pattern RE2 rejects is an error naming the row.
  static Result<Signatures> load(const kb::Kb& kb);
  Signatures(Signatures&&) noexcept;
  Signatures& operator=(Signatures&&) noexcept;
  ~Signatures();

  const std::vector<Signature>& all() const { return signatures_; }
  // Every signature the line matches, with its captures.
  std::vector<SignatureHit> match(std::string_view line) const;
  // Where in the text (many lines at once: the fast path) a signature could first match: the
  // offset of a required literal, or npos when no signature matches anywhere in it.
  size_t first_candidate(std::string_view text) const;

 private:
  Signatures();
  struct Engine;  // the compiled RE2 objects
  std::vector<Signature> signatures_;
  std::unique_ptr<Engine> engine_;
};

}  // namespace gpuvet::explain
