#pragma once
// Reading logs as users have them, in bounded memory: a pasted snippet or a multi-gigabyte
// training log; UTF-8 (with or without BOM), UTF-16LE/BE with BOM (PowerShell 5's `>`), lines
// in GBK (a Chinese Windows' redirected output), CRLF, ANSI colour codes. Binary input is refused.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace gpuvet::explain {

// Longest line kept; the rest of a longer line is dropped (a progress bar redrawn with \r).
inline constexpr size_t kMaxLineBytes = 64 * 1024;
// Most bytes read from one input: 4 times the 1 GiB log the benchmark reads in about a second.
// Without a limit an endless stream (a FIFO, `yes | gpuvet explain -`) would never end; a longer
// log is refused with a hint to pass its end.
inline constexpr std::uint64_t kMaxLogBytes = std::uint64_t{4} << 30;
// How far a log is read for its line ending: text with \r but no \n in it uses \r alone (classic
// Mac OS, some serial consoles); then \r, \n and \r\n all end a line. Otherwise \n ends a line
// and a \r inside one is a progress bar's redraw.
inline constexpr size_t kLineEndSniffBytes = 64 * 1024;

// Called for every line, 1-based; returns false to stop reading.
using LineSink = std::function<bool(size_t line_number, std::string_view line)>;

struct ReadSummary {
  size_t lines = 0;
  bool had_text = false;  // some line with a non-space character
};

// Where in a run of lines something of interest could first be: an offset, or npos for nowhere.
using CandidateFinder = std::function<size_t(std::string_view)>;

// Feeds bytes in any chunking; decodes, splits and cleans lines.
class LogReader {
 public:
  explicit LogReader(LineSink sink) : sink_(std::move(sink)) {}
  // A fast path for big logs: of the complete lines in a chunk, only those holding a candidate
  // (and those with escape sequences, which could split a message) are delivered; the others are
  // counted (explain passes "where could a signature match?").
  void set_candidate_finder(CandidateFinder finder) { finder_ = std::move(finder); }
  // An error for binary input (NUL bytes in UTF-8 text, undecodable UTF-16, or a beginning
  // thick with control bytes, as random data without a NUL is).
  Result<bool> feed(std::string_view bytes);
  Result<ReadSummary> finish();

 private:
  enum class Encoding { unknown, utf8, utf16le, utf16be };
  enum class LineEnd { unknown, lf, cr };
  Result<bool> feed_utf8(std::string_view bytes);
  Result<bool> sniff_binary(std::string_view bytes, bool at_end);
  void split_lines(std::string_view bytes);
  void deliver(std::string_view bytes);
  Result<bool> feed_decoded(std::string_view bytes);
  void decode_utf16(std::string_view bytes, std::string& out);
  void end_line();

  void take_line_bytes(std::string_view bytes);
  size_t skip_to_candidates(std::string_view bytes, size_t pos);
  void count_skipped(std::string_view lines);
  LineSink sink_;
  CandidateFinder finder_;
  Encoding encoding_ = Encoding::unknown;
  LineEnd line_end_ = LineEnd::unknown;
  std::string line_end_head_;  // the first bytes, until the line ending is known
  bool after_cr_ = false;      // LineEnd::cr: the last byte was \r (a \n next is part of it)
  std::string head_;           // the first bytes, until the encoding is known
  std::string line_;           // the line being assembled
  bool line_overflow_ = false;
  std::string utf16_carry_;  // an odd byte or half a surrogate pair between chunks
  bool stopped_ = false;
  size_t consumed_ = 0;       // decoded bytes read, for error messages
  std::string binary_sniff_;  // the first decoded bytes, until kBinarySniffBytes are seen
  bool binary_sniffed_ = false;
  ReadSummary summary_;
};

// Removes ANSI escape sequences (CSI "ESC [ ... letter" and OSC "ESC ] ... BEL") and trailing
// '\r'; a carriage return inside a line keeps what follows it (the last redraw of a progress bar).
std::string clean_line(std::string_view line);

// Reads a file ("-" is standard input) through a LogReader, at most max_bytes of it (an error
// beyond). Errors name the file.
Result<ReadSummary> read_log_file(const std::string& path, const LineSink& sink,
                                  CandidateFinder finder = {},
                                  std::uint64_t max_bytes = kMaxLogBytes);
Result<ReadSummary> read_log_text(std::string_view text, const LineSink& sink,
                                  CandidateFinder finder = {});

}  // namespace gpuvet::explain
