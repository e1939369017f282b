#include "core/gzip.hpp"

#include <zlib.h>

#include <algorithm>
#include <climits>

#include "core/text.hpp"

namespace gpuvet::gzip {

namespace {
// zlib counts in uInt; feed it in chunks that always fit.
constexpr size_t kChunk = size_t{1} << 20;
// windowBits 15 + 16 selects the gzip wrapper in zlib.
constexpr int kGzipWindowBits = 15 + 16;
}  // namespace

bool looks_compressed(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

Inflater::Inflater(size_t max_output)
    : stream_(std::make_unique<z_stream>()), max_output_(max_output) {
  if (inflateInit2(stream_.get(), kGzipWindowBits) == Z_OK) {
    started_ = true;
  } else {
    error_ = make_error("zlib failed to start");
  }
}

Inflater::~Inflater() {
  if (started_) inflateEnd(stream_.get());
}

Result<bool> Inflater::fail(std::string message, std::string key, ErrorArgs args) {
  error_ = keyed_error(std::move(message), std::move(key), std::move(args));
  return *error_;
}

Result<bool> Inflater::feed(std::string_view bytes, std::string& out) {
  if (error_) return *error_;
  std::string joined;
  if (!pending_.empty()) {
    joined = pending_ + std::string(bytes);
    pending_.clear();
    bytes = joined;
  }
  if (buffer_.empty()) buffer_.assign(kChunk, '\0');
  z_stream& stream = *stream_;
  while (!bytes.empty()) {
    if (member_ended_) {
      // Only another member may follow a member's end.
      if (bytes.size() < 2) {
        pending_.assign(bytes);
        return true;
      }
      if (!looks_compressed(bytes))
        return fail("unexpected data after the gzip stream", "gzip.error.trailing_data");
      inflateReset(&stream);
      member_ended_ = false;
    }
    const size_t n = std::min(kChunk, bytes.size());
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    stream.avail_in = static_cast<uInt>(n);
    while (true) {
      // Room for one byte past the ceiling at most: that byte is the error.
      const size_t room = std::min(buffer_.size(), max_output_ + 1 - produced_);
      stream.next_out = reinterpret_cast<Bytef*>(buffer_.data());
      stream.avail_out = static_cast<uInt>(room);
      const int status = inflate(&stream, Z_NO_FLUSH);
      if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) {
        return fail(stream.msg ? std::string("corrupt gzip data (") + stream.msg + ")"
                               : std::string("corrupt gzip data"),
                    "gzip.error.corrupt");
      }
      const size_t produced = room - stream.avail_out;
      out.append(buffer_.data(), produced);
      produced_ += produced;
      if (produced_ > max_output_) {
        return fail(
            "gzip data inflates beyond the size limit of " + text::describe_size(max_output_),
            "gzip.error.too_large", {{"size", text::describe_size(max_output_)}});
      }
      if (status == Z_STREAM_END) {
        member_ended_ = true;
        break;
      }
      // Done with this input when zlib could not fill the output it was given.
      if (status == Z_BUF_ERROR || stream.avail_out > 0) break;
    }
    const size_t used = n - stream.avail_in;
    if (used == 0 && !member_ended_) return fail("corrupt gzip data", "gzip.error.corrupt");
    consumed_ += used;
    bytes.remove_prefix(used);
  }
  return true;
}

Result<bool> Inflater::finish() {
  if (error_) return *error_;
  if (!pending_.empty())
    return fail("unexpected data after the gzip stream", "gzip.error.trailing_data");
  if (!member_ended_) return fail("truncated gzip data", "gzip.error.truncated");
  return true;
}

Result<std::string> decompress(std::string_view bytes, size_t max_output) {
  Inflater inflater(max_output);
  std::string out;
  if (auto fed = inflater.feed(bytes, out); !fed) return fed.error();
  if (auto done = inflater.finish(); !done) return done.error();
  return out;
}

Result<std::string> compress(std::string_view bytes) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindowBits, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return make_error("zlib failed to start");
  }
  std::string out;
  std::string buffer(kChunk, '\0');
  size_t consumed = 0;
  int status = Z_OK;
  while (status != Z_STREAM_END) {
    if (stream.avail_in == 0 && consumed < bytes.size()) {
      const size_t n = std::min(kChunk, bytes.size() - consumed);
      stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + consumed));
      stream.avail_in = static_cast<uInt>(n);
      consumed += n;
    }
    const int flush = consumed == bytes.size() ? Z_FINISH : Z_NO_FLUSH;
    stream.next_out = reinterpret_cast<Bytef*>(buffer.data());
    stream.avail_out = static_cast<uInt>(buffer.size());
    status = deflate(&stream, flush);
    if (status == Z_STREAM_ERROR) {
      deflateEnd(&stream);
      return make_error("zlib failed to compress");
    }
    out.append(buffer.data(), buffer.size() - stream.avail_out);
  }
  deflateEnd(&stream);
  return out;
}

}  // namespace gpuvet::gzip
