#pragma once
// Reading logs as users have them, in bounded memory: a pasted snippet or a multi-gigabyte
// training log; UTF-8 (with or without BOM), UTF-16LE/BE with BOM (PowerShell 5's `>`), CRLF,
// ANSI colour codes. Binary input is refused.
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace gpuvet::explain {

// Longest line kept; the rest of a longer line is dropped (a progress bar redrawn with \r).
inline constexpr size_t kMaxLineBytes = 64 * 1024;

// Called for every line, 1-based; returns false to stop reading.
using LineSink = std::function<bool(size_t line_number, std::string_view line)>;

struct ReadSummary {
  size_t lines = 0;
  bool had_text = false;  // some line with a non-space character
};

// Feeds bytes in any chunking; decodes, splits and cleans lines.
class LogReader {
 public:
  explicit LogReader(LineSink sink) : sink_(std::move(sink)) {}
  // A fast path for big logs: whole runs of complete lines the filter rejects are counted, not
  // delivered line by line (explain passes "could any signature match in here?").
  void set_block_filter(std::function<bool(std::string_view)> filter) {
    block_filter_ = std::move(filter);
  }
  // An error for binary input (NUL bytes in UTF-8 text, or undecodable UTF-16).
  Result<bool> feed(std::string_view bytes);
  Result<ReadSummary> finish();

 private:
  enum class Encoding { unknown, utf8, utf16le, utf16be };
  Result<bool> feed_utf8(std::string_view bytes);
  Result<bool> feed_decoded(std::string_view bytes);
  void decode_utf16(std::string_view bytes, std::string& out);
  void end_line();

  void take_line_bytes(std::string_view bytes);
  LineSink sink_;
  std::function<bool(std::string_view)> block_filter_;
  Encoding encoding_ = Encoding::unknown;
  std::string head_;  // the first bytes, until the encoding is known
  std::string line_;  // the line being assembled
  bool line_overflow_ = false;
  std::string utf16_carry_;  // an odd byte or half a surrogate pair between chunks
  bool stopped_ = false;
  size_t consumed_ = 0;  // decoded bytes read, for error messages
  ReadSummary summary_;
};

// Removes ANSI escape sequences (CSI "ESC [ ... letter" and OSC "ESC ] ... BEL") and trailing
// '\r'; a carriage return inside a line keeps what follows it (the last redraw of a progress bar).
std::string clean_line(std::string_view line);

// Reads a file ("-" is standard input) through a LogReader. Errors name the file.
Result<ReadSummary> read_log_file(const std::string& path, const LineSink& sink,
                                  std::function<bool(std::string_view)> block_filter = {});
Result<ReadSummary> read_log_text(std::string_view text, const LineSink& sink,
                                  std::function<bool(std::string_view)> block_filter = {});

}  // namespace gpuvet::explain
