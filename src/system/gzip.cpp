#include "system/gzip.hpp"

#include <zlib.h>

#include <algorithm>
#include <climits>

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

Result<std::string> decompress(std::string_view bytes, size_t max_output) {
  z_stream stream{};
  if (inflateInit2(&stream, kGzipWindowBits) != Z_OK) return make_error("zlib failed to start");
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
    stream.next_out = reinterpret_cast<Bytef*>(buffer.data());
    stream.avail_out = static_cast<uInt>(buffer.size());
    status = inflate(&stream, Z_NO_FLUSH);
    if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) {
      inflateEnd(&stream);
      return make_error(stream.msg ? std::string("corrupt gzip data (") + stream.msg + ")"
                                   : std::string("corrupt gzip data"));
    }
    const size_t produced = buffer.size() - stream.avail_out;
    if (status == Z_BUF_ERROR && produced == 0 && stream.avail_in == 0 &&
        consumed == bytes.size()) {
      inflateEnd(&stream);
      return make_error("truncated gzip data");
    }
    out.append(buffer.data(), produced);
    if (out.size() > max_output) {
      inflateEnd(&stream);
      return make_error("gzip data inflates beyond the size limit");
    }
    // A gzip file may hold several members one after another (RFC 1952 §2.2); anything else
    // after the first is not gzip data.
    const size_t unread = stream.avail_in + (bytes.size() - consumed);
    if (status == Z_STREAM_END && unread > 0) {
      const std::string_view rest = bytes.substr(bytes.size() - unread);
      if (!looks_compressed(rest)) {
        inflateEnd(&stream);
        return make_error("unexpected data after the gzip stream");
      }
      inflateReset(&stream);
      status = Z_OK;
    }
  }
  inflateEnd(&stream);
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
