#include "core/zip_reader.hpp"

#include <zlib.h>

#include <algorithm>
#include <fstream>
#include <optional>

#include "core/paths.hpp"

namespace gpuvet::zip {

namespace {

constexpr std::uint32_t kEndOfDirectory = 0x06054b50;
constexpr std::uint32_t kZip64Locator = 0x07064b50;
constexpr std::uint32_t kZip64End = 0x06064b50;
constexpr std::uint32_t kDirectoryEntry = 0x02014b50;
constexpr std::uint32_t kLocalHeader = 0x04034b50;
constexpr size_t kEndRecordSize = 22;
constexpr size_t kMaxComment = 0xFFFF;
constexpr std::uint64_t kMaxEntries = 1'000'000;
constexpr std::uint64_t kMaxDirectoryBytes = std::uint64_t{256} << 20;

std::uint64_t little(std::string_view bytes, size_t at, size_t width) {
  std::uint64_t value = 0;
  for (size_t i = 0; i < width; ++i)
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return value;
}

class File {
 public:
  explicit File(const std::string& path) : in_(paths::to_fs(path), std::ios::binary) {
    if (in_) {
      in_.seekg(0, std::ios::end);
      size_ = static_cast<std::uint64_t>(in_.tellg());
    }
  }
  bool ok() const { return static_cast<bool>(in_); }
  std::uint64_t size() const { return size_; }
  // Exactly `count` bytes at `offset`, or nothing.
  std::optional<std::string> read(std::uint64_t offset, std::uint64_t count) {
    if (offset > size_ || count > size_ - offset) return std::nullopt;
    std::string out(static_cast<size_t>(count), '\0');
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(offset));
    in_.read(out.data(), static_cast<std::streamsize>(count));
    if (static_cast<std::uint64_t>(in_.gcount()) != count) return std::nullopt;
    return out;
  }

 private:
  std::ifstream in_;
  std::uint64_t size_ = 0;
};

struct Directory {
  std::uint64_t entries = 0;
  std::uint64_t size = 0;
  std::uint64_t offset = 0;
};

Result<Directory> find_directory(File& file, const std::string& path) {
  const Error damaged{path + ": not a ZIP archive (no end of central directory)"};
  const std::uint64_t tail = std::min<std::uint64_t>(file.size(), kEndRecordSize + kMaxComment);
  auto bytes = file.read(file.size() - tail, tail);
  if (!bytes || bytes->size() < kEndRecordSize) return damaged;
  size_t at = bytes->size() - kEndRecordSize + 1;
  while (at-- > 0) {
    if (little(*bytes, at, 4) == kEndOfDirectory) break;
    if (at == 0) return damaged;
  }
  Directory d{little(*bytes, at + 10, 2), little(*bytes, at + 12, 4), little(*bytes, at + 16, 4)};
  const std::uint64_t end_at = file.size() - tail + at;
  if ((d.entries == 0xFFFF || d.size == 0xFFFFFFFF || d.offset == 0xFFFFFFFF) && end_at >= 20) {
    auto locator = file.read(end_at - 20, 20);
    if (locator && little(*locator, 0, 4) == kZip64Locator) {
      auto record = file.read(little(*locator, 8, 8), 56);
      if (!record || little(*record, 0, 4) != kZip64End) {
        return Error{path + ": damaged ZIP64 end of central directory"};
      }
      d = {little(*record, 32, 8), little(*record, 40, 8), little(*record, 48, 8)};
    }
  }
  if (d.entries > kMaxEntries || d.size > kMaxDirectoryBytes) {
    return Error{path + ": central directory too large"};
  }
  return d;
}

// ZIP64's extra field holds the 64-bit values whose 32-bit fields are all ones, in this order.
void apply_zip64(std::string_view extra, Entry& e, bool size32, bool compressed32, bool offset32) {
  size_t at = 0;
  while (at + 4 <= extra.size()) {
    const auto id = little(extra, at, 2);
    const auto length = little(extra, at + 2, 2);
    if (at + 4 + length > extra.size()) return;
    if (id == 0x0001) {
      size_t field = at + 4;
      const size_t end = at + 4 + length;
      for (auto* slot : {size32 ? &e.size : nullptr, compressed32 ? &e.compressed_size : nullptr,
                         offset32 ? &e.local_offset : nullptr}) {
        if (!slot) continue;
        if (field + 8 > end) return;
        *slot = little(extra, field, 8);
        field += 8;
      }
      return;
    }
    at += 4 + length;
  }
}

Result<std::vector<Entry>> read_directory(std::string_view bytes, std::uint64_t count,
                                          const std::string& path) {
  std::vector<Entry> out;
  size_t at = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (at + 46 > bytes.size() || little(bytes, at, 4) != kDirectoryEntry) {
      return Error{path + ": damaged central directory"};
    }
    Entry e;
    e.flags = static_cast<std::uint16_t>(little(bytes, at + 8, 2));
    e.method = static_cast<std::uint16_t>(little(bytes, at + 10, 2));
    e.crc32 = static_cast<std::uint32_t>(little(bytes, at + 16, 4));
    e.compressed_size = little(bytes, at + 20, 4);
    e.size = little(bytes, at + 24, 4);
    const size_t name_length = little(bytes, at + 28, 2);
    const size_t extra_length = little(bytes, at + 30, 2);
    const size_t comment_length = little(bytes, at + 32, 2);
    e.local_offset = little(bytes, at + 42, 4);
    if (at + 46 + name_length + extra_length + comment_length > bytes.size()) {
      return Error{path + ": damaged central directory"};
    }
    e.name = std::string(bytes.substr(at + 46, name_length));
    apply_zip64(bytes.substr(at + 46 + name_length, extra_length), e, e.size == 0xFFFFFFFF,
                e.compressed_size == 0xFFFFFFFF, e.local_offset == 0xFFFFFFFF);
    std::replace(e.name.begin(), e.name.end(), '\\', '/');
    out.push_back(std::move(e));
    at += 46 + name_length + extra_length + comment_length;
  }
  return out;
}

// Raw deflate (no zlib or gzip header), into exactly `expected` bytes: a stream that ends early or
// would go on past them is damaged.
Result<std::string> inflate_raw(std::string_view in, std::uint64_t expected,
                                const std::string& what) {
  if (expected >= 0xFFFFFFFFu) return Error{what + ": larger than the limit"};
  z_stream stream{};
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) return Error{what + ": zlib failed to start"};
  std::string out(static_cast<size_t>(expected) + 1, '\0');  // one byte to spot an overrun
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  size_t fed = 0;
  int status = Z_OK;
  while (true) {
    if (stream.avail_in == 0) {
      if (fed == in.size()) break;
      const size_t piece = std::min<size_t>(in.size() - fed, 1u << 30);
      stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + fed));
      stream.avail_in = static_cast<uInt>(piece);
      fed += piece;
    }
    status = inflate(&stream, Z_NO_FLUSH);
    if (status == Z_STREAM_END) break;
    if (status != Z_OK && status != Z_BUF_ERROR) break;
    if (stream.avail_out == 0) break;  // past the size the directory gives
  }
  const size_t produced = out.size() - stream.avail_out;
  inflateEnd(&stream);
  if (status != Z_STREAM_END || produced != expected) return Error{what + ": damaged data"};
  out.resize(produced);
  return out;
}

}  // namespace

Result<Archive> Archive::open(const std::string& path) {
  File file(path);
  if (!file.ok()) return Error{path + ": cannot read it"};
  auto directory = find_directory(file, path);
  if (!directory) return directory.error();
  auto bytes = file.read(directory->offset, directory->size);
  if (!bytes) return Error{path + ": the central directory lies outside the file"};
  auto entries = read_directory(*bytes, directory->entries, path);
  if (!entries) return entries.error();
  Archive archive;
  archive.path_ = path;
  archive.entries_ = std::move(*entries);
  return archive;
}

Result<std::string> Archive::read(const Entry& entry, std::uint64_t max_bytes) const {
  const std::string what = path_ + ": " + entry.name;
  if (entry.flags & 1) return Error{what + ": encrypted"};
  if (entry.method != 0 && entry.method != 8) {
    return Error{what + ": compression method " + std::to_string(entry.method) + " is not read"};
  }
  if (entry.size > max_bytes) return Error{what + ": larger than the limit"};
  File file(path_);
  auto header = file.read(entry.local_offset, 30);
  if (!header || little(*header, 0, 4) != kLocalHeader) return Error{what + ": damaged header"};
  const std::uint64_t data_at =
      entry.local_offset + 30 + little(*header, 26, 2) + little(*header, 28, 2);
  auto data = file.read(data_at, entry.compressed_size);
  if (!data) return Error{what + ": data lies outside the file"};
  Result<std::string> out = entry.method == 0 ? Result<std::string>(std::move(*data))
                                              : inflate_raw(*data, entry.size, what);
  if (!out) return out;
  if (out->size() != entry.size) return Error{what + ": damaged data"};
  uLong crc = crc32(0L, Z_NULL, 0);
  for (size_t done = 0; done < out->size();) {
    const auto piece = static_cast<uInt>(std::min<size_t>(out->size() - done, 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(out->data() + done), piece);
    done += piece;
  }
  if (static_cast<std::uint32_t>(crc) != entry.crc32) return Error{what + ": CRC-32 differs"};
  return out;
}

}  // namespace gpuvet::zip
