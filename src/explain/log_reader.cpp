#include "explain/log_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "core/c_file.hpp"
#include "core/legacy_text.hpp"
#include "core/text.hpp"
#include "explain/pasted_forms.hpp"
#include "kb/messages.hpp"

namespace gpuvet::explain {

namespace {

constexpr size_t kSniffBytes = 4096;
// Big enough that the per-chunk work vanishes, small enough to stay in the L2 cache.
constexpr size_t kReadChunkBytes = 256 * 1024;

}  // namespace

std::string clean_line(std::string_view line) {
  while (!line.empty() && line.back() == '\r')
    line.remove_suffix(1);
  // A carriage return redraws the line: what the terminal finally showed is after the last one.
  if (const size_t cr = line.rfind('\r'); cr != std::string_view::npos) line = line.substr(cr + 1);
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c != '\x1b') {
      out.push_back(c);
      continue;
    }
    if (i + 1 < line.size() && line[i + 1] == '[') {
      // CSI: parameters and intermediates up to a final byte in @..~.
      size_t j = i + 2;
      while (j < line.size() && !(line[j] >= '@' && line[j] <= '~'))
        ++j;
      i = j;
    } else if (i + 1 < line.size() && line[i + 1] == ']') {
      size_t j = i + 2;
      while (j < line.size() && line[j] != '\x07')
        ++j;
      i = j;
    } else {
      ++i;  // a two-byte escape
    }
  }
  return out;
}

void LogReader::end_line() {
  if (stopped_) return;
  ++summary_.lines;
  std::string cleaned = clean_line(line_);
  // A Chinese Windows writes redirected output in GBK: its lines are read as what they say.
  if (!text::is_utf8(cleaned)) {
    if (auto decoded = text::gbk_to_utf8(cleaned)) cleaned = std::move(*decoded);
  }
  if (cleaned.find_first_not_of(" \t") != std::string::npos) summary_.had_text = true;
  if (!sink_(summary_.lines, cleaned)) stopped_ = true;
  line_.clear();
  line_overflow_ = false;
}

void LogReader::take_line_bytes(std::string_view bytes) {
  const size_t room = kMaxLineBytes > line_.size() ? kMaxLineBytes - line_.size() : 0;
  line_.append(bytes.substr(0, room));
  if (bytes.size() > room) line_overflow_ = true;
}

namespace {

// Newlines counted in byte-wide lanes that cannot overflow (255 rounds), which compilers turn
// into SIMD; std::count's 64-bit sums are four times slower, and skipped lines are most of a log.
size_t count_newlines(std::string_view text) {
  constexpr size_t kLanes = 16;
  constexpr size_t kRounds = 255;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  size_t n = text.size();
  size_t total = 0;
  while (n >= kLanes) {
    const size_t rounds = std::min(kRounds, n / kLanes);
    unsigned char lanes[kLanes] = {};
    for (size_t r = 0; r < rounds; ++r, p += kLanes) {
      for (size_t k = 0; k < kLanes; ++k)
        lanes[k] = static_cast<unsigned char>(lanes[k] + (p[k] == '\n'));
    }
    for (const unsigned char lane : lanes)
      total += lane;
    n -= rounds * kLanes;
  }
  for (; n > 0; --n, ++p)
    total += *p == '\n';
  return total;
}

}  // namespace

void LogReader::count_skipped(std::string_view lines) {
  summary_.lines += count_newlines(lines);
  if (!summary_.had_text && lines.find_first_not_of(" \t\r\n") != std::string_view::npos) {
    summary_.had_text = true;
  }
}

// Over the complete lines from pos: counts the lines without a candidate, an escape sequence or
// an escaped message, delivers the others; returns where the last, unfinished line starts. A
// candidate or escape found beyond the delivered line is kept, so no byte is searched twice.
size_t LogReader::skip_to_candidates(std::string_view bytes, size_t pos) {
  constexpr size_t npos = std::string_view::npos;
  const size_t last_newline = bytes.rfind('\n');
  if (last_newline == npos || last_newline < pos) return pos;
  const size_t end = last_newline + 1;
  size_t candidate = npos;  // absolute offsets; npos until searched
  size_t escape = npos;
  size_t escaped = npos;
  while (pos < end && !stopped_) {
    const std::string_view rest = bytes.substr(pos, end - pos);
    if (candidate == npos || candidate < pos) {
      const size_t at = finder_(rest);
      candidate = at == npos ? end : pos + std::min(at, rest.size());
    }
    if (escape == npos || escape < pos) {
      const void* esc = std::memchr(rest.data(), '\x1b', rest.size());
      escape = esc ? static_cast<size_t>(static_cast<const char*>(esc) - bytes.data()) : end;
    }
    // A message escaped by what carried it (pasted_forms.hpp) may hide a literal's quote or
    // backslash: such a line is delivered too.
    if (escaped == npos || escaped < pos) {
      const size_t at = first_escaped_form(rest);
      escaped = at == npos ? end : pos + at;
    }
    const size_t next = std::min({candidate, escape, escaped});
    if (next >= end) {
      count_skipped(rest);
      return end;
    }
    const size_t previous_newline = bytes.substr(pos, next - pos).rfind('\n');
    const size_t begin = previous_newline == npos ? pos : pos + previous_newline + 1;
    count_skipped(bytes.substr(pos, begin - pos));
    const size_t newline = bytes.find('\n', next);
    take_line_bytes(bytes.substr(begin, newline - begin));
    end_line();
    pos = newline + 1;
  }
  return pos;
}

namespace {

// How much of the beginning decides whether NUL-free input is text, and the least that can.
constexpr size_t kBinarySniffBytes = 4096;
constexpr size_t kBinarySniffMinimum = 256;

// A log's text has almost no C0 control bytes beyond whitespace, backspace and ESC (colour
// codes); random or compressed data has one in about ten bytes (26 of 256 values).
bool thick_with_control_bytes(std::string_view head) {
  size_t control = 0;
  for (const unsigned char c : head) {
    const bool allowed = c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' ||
                         c == '\b' || c == 0x1b || c == 0x07;
    if ((c < 0x20 && !allowed) || c == 0x7f) ++control;
  }
  return control * 20 > head.size();  // more than 5%
}

}  // namespace

Result<bool> LogReader::sniff_binary(std::string_view bytes, bool at_end) {
  if (binary_sniffed_) return true;
  binary_sniff_.append(bytes.substr(0, kBinarySniffBytes - binary_sniff_.size()));
  if (binary_sniff_.size() < kBinarySniffBytes && !at_end) return true;
  binary_sniffed_ = true;
  const bool binary =
      binary_sniff_.size() >= kBinarySniffMinimum && thick_with_control_bytes(binary_sniff_);
  binary_sniff_.clear();
  if (binary) return kb::catalog_error("log.error.binary_control");
  return true;
}

Result<bool> LogReader::feed_utf8(std::string_view bytes) {
  if (const void* nul = std::memchr(bytes.data(), '\0', bytes.size())) {
    const size_t at = static_cast<size_t>(static_cast<const char*>(nul) - bytes.data());
    return kb::catalog_error("log.error.binary_nul", {{"offset", std::to_string(consumed_ + at)}});
  }
  if (auto text = sniff_binary(bytes, false); !text) return text.error();
  consumed_ += bytes.size();
  split_lines(bytes);
  return true;
}

void LogReader::split_lines(std::string_view bytes) {
  if (line_end_ == LineEnd::unknown) {
    // The first kLineEndSniffBytes decide; nearly every log decides on its first line.
    const size_t before = line_end_head_.size();
    const std::string_view window = bytes.substr(0, kLineEndSniffBytes - before);
    if (std::memchr(window.data(), '\n', window.size())) {
      line_end_ = LineEnd::lf;
    } else if (before + bytes.size() < kLineEndSniffBytes) {
      line_end_head_.append(bytes);
      return;
    } else {
      const bool cr = line_end_head_.find('\r') != std::string::npos ||
                      window.find('\r') != std::string_view::npos;
      line_end_ = cr ? LineEnd::cr : LineEnd::lf;
    }
    if (before > 0) {
      std::string head = std::move(line_end_head_);
      line_end_head_.clear();
      head.append(bytes);
      split_lines(head);
      return;
    }
  }
  if (line_end_ == LineEnd::lf) {
    deliver(bytes);
    return;
  }
  // \r, \n and \r\n each end one line.
  std::string lines;
  lines.reserve(bytes.size());
  for (const char c : bytes) {
    if (c == '\n' && after_cr_) {
      after_cr_ = false;
      continue;
    }
    after_cr_ = c == '\r';
    lines.push_back(after_cr_ ? '\n' : c);
  }
  deliver(lines);
}

void LogReader::deliver(std::string_view bytes) {
  size_t pos = 0;
  // The line left open by the previous chunk ends first.
  if (!line_.empty() || line_overflow_) {
    const size_t newline = bytes.find('\n');
    if (newline == std::string_view::npos) {
      take_line_bytes(bytes);
      return;
    }
    take_line_bytes(bytes.substr(0, newline));
    end_line();
    pos = newline + 1;
  }
  if (finder_) pos = skip_to_candidates(bytes, pos);
  while (pos < bytes.size() && !stopped_) {
    const size_t newline = bytes.find('\n', pos);
    if (newline == std::string_view::npos) {
      take_line_bytes(bytes.substr(pos));
      break;
    }
    take_line_bytes(bytes.substr(pos, newline - pos));
    end_line();
    pos = newline + 1;
  }
}

void LogReader::decode_utf16(std::string_view bytes, std::string& out) {
  std::string data = utf16_carry_ + std::string(bytes);
  utf16_carry_.clear();
  size_t i = 0;
  const bool le = encoding_ == Encoding::utf16le;
  auto unit = [&](size_t at) -> char16_t {
    const auto lo = static_cast<unsigned char>(data[at + (le ? 0 : 1)]);
    const auto hi = static_cast<unsigned char>(data[at + (le ? 1 : 0)]);
    return static_cast<char16_t>(lo | (hi << 8));
  };
  while (i + 1 < data.size()) {
    const char16_t u = unit(i);
    if (u >= 0xD800 && u <= 0xDBFF) {
      if (i + 3 >= data.size()) break;  // the low half comes with the next chunk
      const char16_t low = unit(i + 2);
      if (low >= 0xDC00 && low <= 0xDFFF) {
        text::append_utf8(out,
                          0x10000 + ((static_cast<char32_t>(u) - 0xD800) << 10) + (low - 0xDC00));
        i += 4;
        continue;
      }
      text::append_utf8(out, 0xFFFD);
      i += 2;
      continue;
    }
    text::append_utf8(out, (u >= 0xDC00 && u <= 0xDFFF) ? char32_t{0xFFFD} : char32_t{u});
    i += 2;
  }
  utf16_carry_ = data.substr(i);
}

Result<bool> LogReader::feed(std::string_view bytes) {
  if (stopped_) return true;
  if (encoding_ == Encoding::unknown) {
    head_.append(bytes);
    if (head_.size() < 3 && bytes.size() > 0) return true;
    std::string_view head = head_;
    if (head.starts_with("\xEF\xBB\xBF")) {
      encoding_ = Encoding::utf8;
      head.remove_prefix(3);
    } else if (head.starts_with("\xFF\xFE")) {
      encoding_ = Encoding::utf16le;
      head.remove_prefix(2);
    } else if (head.starts_with("\xFE\xFF")) {
      encoding_ = Encoding::utf16be;
      head.remove_prefix(2);
    } else {
      encoding_ = Encoding::utf8;
    }
    const std::string pending(head);
    head_.clear();
    head_.shrink_to_fit();
    return feed_decoded(pending);
  }
  return feed_decoded(bytes);
}

Result<bool> LogReader::feed_decoded(std::string_view bytes) {
  if (encoding_ == Encoding::utf8) return feed_utf8(bytes);
  std::string decoded;
  decode_utf16(bytes, decoded);
  return feed_utf8(decoded);
}

Result<ReadSummary> LogReader::finish() {
  if (encoding_ == Encoding::unknown && !head_.empty()) {
    encoding_ = Encoding::utf8;
    const std::string pending = head_;
    head_.clear();
    if (auto fed = feed_utf8(pending); !fed) return fed.error();
  }
  if (auto text = sniff_binary({}, true); !text) return text.error();
  if (line_end_ == LineEnd::unknown) {
    // Shorter than the sniff: decide on what there is.
    line_end_ = line_end_head_.find('\r') != std::string::npos ? LineEnd::cr : LineEnd::lf;
    std::string head = std::move(line_end_head_);
    line_end_head_.clear();
    split_lines(head);
  }
  if (!line_.empty() || line_overflow_) end_line();
  if (!summary_.had_text) return kb::catalog_error("log.error.no_text");
  return summary_;
}

Result<ReadSummary> read_log_text(std::string_view text, const LineSink& sink,
                                  CandidateFinder finder) {
  LogReader reader(sink);
  reader.set_candidate_finder(std::move(finder));
  if (auto fed = reader.feed(text); !fed) return fed.error();
  return reader.finish();
}

Result<ReadSummary> read_log_file(const std::string& path, const LineSink& sink,
                                  CandidateFinder finder, std::uint64_t max_bytes) {
  const bool stdin_input = path == "-";
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(
      stdin_input ? stdin : open_for_reading(path),
      stdin_input ? [](std::FILE*) { return 0; } : &std::fclose);
  // Where the error was met: the file, or standard input.
  const auto located = [&](Error error) {
    return stdin_input ? kb::within(std::move(error), "log.error.in_stdin")
                       : in_file(std::move(error), path);
  };
  if (!file) return located(open_error(errno));
  LogReader reader(sink);
  reader.set_candidate_finder(std::move(finder));
  std::string buffer(kReadChunkBytes, '\0');
  std::uint64_t total = 0;
  while (true) {
    const size_t n = std::fread(buffer.data(), 1, buffer.size(), file.get());
    total += n;
    if (total > max_bytes) {
      return located(
          kb::catalog_error("log.error.too_large", {{"size", text::describe_size(max_bytes)}}));
    }
    if (n > 0) {
      auto fed = reader.feed(std::string_view(buffer.data(), n));
      if (!fed) return located(fed.error());
    }
    if (n < buffer.size()) {
      if (std::ferror(file.get())) {
        return located(kb::catalog_error("error.os.read_error"));
      }
      break;
    }
  }
  auto summary = reader.finish();
  if (!summary) return located(summary.error());
  return summary;
}

}  // namespace gpuvet::explain
