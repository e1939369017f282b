#include "fleet/wire.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include "core/base64.hpp"
#include "core/text.hpp"

namespace gpuvet::fleet {

namespace {

std::uint32_t crc_of(std::string_view bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes a uInt length: feed big inputs in pieces.
  for (size_t done = 0; done < bytes.size();) {
    const size_t piece = std::min<size_t>(bytes.size() - done, size_t{1} << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + done), static_cast<uInt>(piece));
    done += piece;
  }
  return static_cast<std::uint32_t>(crc);
}

std::string prefix(std::string_view node) {
  return fmt::format("{} {}", kWireTag, node);
}

// The next space-separated word of `rest`, taken off it.
std::string_view next_word(std::string_view& rest) {
  const size_t start = rest.find_first_not_of(' ');
  if (start == std::string_view::npos) {
    rest = {};
    return {};
  }
  rest.remove_prefix(start);
  const size_t end = rest.find(' ');
  const std::string_view word = rest.substr(0, end);
  rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
  return word;
}

std::optional<unsigned long long> number(std::string_view word, int base = 10) {
  if (word.empty() || word.size() > 16) return std::nullopt;
  unsigned long long value = 0;
  for (const char c : word) {
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    if (base == 16 && c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    if (digit < 0) return std::nullopt;
    value = value * static_cast<unsigned>(base) + static_cast<unsigned>(digit);
  }
  return value;
}

std::string one_line(std::string_view reason) {
  std::string out = text::replace_all(reason, "\r", " ");
  out = text::replace_all(out, "\n", " ");
  return out.empty() ? std::string("no reason given") : out;
}

}  // namespace

std::vector<std::string> wire_lines(std::string_view node, std::string_view nodelist,
                                    std::string_view gzip_snapshot) {
  const std::string head = prefix(node);
  std::vector<std::string> lines = {fmt::format("{} begin {}", head, nodelist)};
  const std::string encoded = base64::encode(gzip_snapshot);
  size_t seq = 0;
  for (size_t at = 0; at < encoded.size(); at += kWireChunk, ++seq)
    lines.push_back(fmt::format("{} data {} {}", head, seq, encoded.substr(at, kWireChunk)));
  lines.push_back(fmt::format("{} end ok {} {} {:08x}", head, seq, gzip_snapshot.size(),
                              crc_of(gzip_snapshot)));
  return lines;
}

std::vector<std::string> wire_failure(std::string_view node, std::string_view nodelist,
                                      CollectStatus status, std::string_view reason) {
  const std::string head = prefix(node);
  return {fmt::format("{} begin {}", head, nodelist),
          fmt::format("{} end {} {}", head, to_string(status), one_line(reason))};
}

void WireReader::feed_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n'))
    line.remove_suffix(1);
  // A scheduler may put a label before each line ("0: ", srun --label).
  const size_t tag = line.find(kWireTag);
  std::string_view rest = tag == std::string_view::npos ? std::string_view{} : line.substr(tag);
  if (tag == std::string_view::npos || next_word(rest) != kWireTag) {
    if (!text::trim(line).empty()) other_.emplace_back(line);
    return;
  }
  const std::string node(next_word(rest));
  const std::string_view kind = next_word(rest);
  if (node.empty() || kind.empty()) {
    other_.emplace_back(line);
    return;
  }
  auto [it, added] = index_.emplace(node, pending_.size());
  if (added) pending_.push_back({WireNode{node, std::nullopt, std::nullopt, "", ""}, "", 0, false});
  Pending& pending = pending_[it->second];
  if (kind == "begin") {
    pending.node.nodelist = std::string(next_word(rest));
  } else if (kind == "data") {
    const auto seq = number(next_word(rest));
    if (!seq || *seq != pending.next_seq) pending.broken = true;
    ++pending.next_seq;
    pending.base64 += next_word(rest);
  } else if (kind == "end") {
    end(pending, rest);
  } else {
    other_.emplace_back(line);
  }
}

void WireReader::end(Pending& pending, std::string_view rest) {
  WireNode& node = pending.node;
  const std::string_view status = next_word(rest);
  if (status != "ok") {
    node.status = status == "timed_out" ? CollectStatus::timed_out : CollectStatus::failed;
    node.reason = one_line(rest);
    return;
  }
  const auto lines = number(next_word(rest));
  const auto bytes = number(next_word(rest));
  const auto crc = number(next_word(rest), 16);
  node.status = CollectStatus::failed;
  if (pending.broken || !lines || *lines != pending.next_seq) {
    node.reason = "its snapshot arrived incomplete (lines lost or out of order)";
    return;
  }
  auto decoded = base64::decode(pending.base64);
  pending.base64.clear();
  if (!decoded || !bytes || decoded->size() != *bytes || !crc || crc_of(*decoded) != *crc) {
    node.reason = "its snapshot arrived damaged (size or checksum differs)";
    return;
  }
  node.status = CollectStatus::ok;
  node.snapshot = std::move(*decoded);
}

std::vector<WireNode> WireReader::nodes() const {
  std::vector<WireNode> out;
  for (const Pending& pending : pending_)
    out.push_back(pending.node);
  return out;
}

}  // namespace gpuvet::fleet
