#pragma once
// gzip through zlib, with a ceiling on the inflated size so that a crafted file cannot exhaust
// memory: inflating stops at the ceiling, whatever the compressed data would still produce.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"

struct z_stream_s;

namespace gpuvet::gzip {

inline constexpr size_t kMaxInflatedBytes = size_t{512} << 20;

bool looks_compressed(std::string_view bytes);

// Inflates a gzip stream fed in any chunking (several members one after another are one stream,
// RFC 1952 §2.2). Never produces more than max_output + 1 bytes: the byte past the ceiling is the
// error, and nothing more is read.
class Inflater {
 public:
  explicit Inflater(size_t max_output);
  ~Inflater();
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  // Appends what the next compressed bytes inflate to. An error, final, for corrupt data, data
  // after the stream that is not another gzip member, or output beyond max_output.
  Result<bool> feed(std::string_view bytes, std::string& out);
  // An error when the input ended inside a member (truncated).
  Result<bool> finish();

  size_t produced() const { return produced_; }  // inflated bytes
  size_t consumed() const { return consumed_; }  // compressed bytes inflate() took

 private:
  // Stops inflating: the English words, and the catalog's key for them (gzip.error.*).
  Result<bool> fail(std::string message, std::string key, ErrorArgs args = {});

  std::unique_ptr<z_stream_s> stream_;
  std::string buffer_;
  std::string pending_;  // the first byte of a next member's magic, split between two feeds
  std::optional<Error> error_;
  size_t max_output_ = 0;
  size_t produced_ = 0;
  size_t consumed_ = 0;
  bool started_ = false;
  bool member_ended_ = false;
};

Result<std::string> decompress(std::string_view bytes, size_t max_output = kMaxInflatedBytes);
Result<std::string> compress(std::string_view bytes);

}  // namespace gpuvet::gzip
