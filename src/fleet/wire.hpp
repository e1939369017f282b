#pragma once
// How a node's snapshot travels back through a scheduler's output (`fleet node` prints it,
// `fleet collect` reads it): text lines, each short enough that no scheduler splits it, each
// naming its node, so that the lines of many nodes may arrive interleaved.
//
//   gpuvet-fleet/1 NODE begin NODELIST
//   gpuvet-fleet/1 NODE data SEQ BASE64        (the gzip-compressed snapshot, in pieces)
//   gpuvet-fleet/1 NODE end ok LINES BYTES CRC32
//   gpuvet-fleet/1 NODE end failed|timed_out REASON...
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/collect_record.hpp"

namespace gpuvet::fleet {

inline constexpr std::string_view kWireTag = "gpuvet-fleet/1";
// Base64 characters a data line carries: with its prefix well under the 1 KiB a scheduler's I/O
// message may hold.
inline constexpr size_t kWireChunk = 512;

// The lines of a node that took its snapshot (gzip bytes), or could not (status and reason).
std::vector<std::string> wire_lines(std::string_view node, std::string_view nodelist,
                                    std::string_view gzip_snapshot);
std::vector<std::string> wire_failure(std::string_view node, std::string_view nodelist,
                                      CollectStatus status, std::string_view reason);

struct WireNode {
  std::string node;
  std::optional<std::string> nodelist;  // from its begin line
  std::optional<CollectStatus> status;  // null: its end line never came
  std::string reason;
  std::string snapshot;  // the gzip bytes, when status is ok
};

// Reads a scheduler's whole output: the records, in the order nodes first appeared, and the lines
// that were not records (the scheduler's own messages).
class WireReader {
 public:
  void feed_line(std::string_view line);
  std::vector<WireNode> nodes() const;
  const std::vector<std::string>& other_lines() const { return other_; }

 private:
  struct Pending {
    WireNode node;
    std::string base64;
    size_t next_seq = 0;
    bool broken = false;  // a data line lost, repeated or out of order
  };
  void end(Pending& pending, std::string_view rest);

  std::map<std::string, size_t> index_;
  std::vector<Pending> pending_;
  std::vector<std::string> other_;
};

}  // namespace gpuvet::fleet
