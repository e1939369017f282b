#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/c_file.hpp"
#include "core/gzip.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "kb/messages.hpp"
#include "system/snapshot.hpp"

namespace gpuvet::sys {

namespace {

// Binary data shows in its first bytes; a JSON text never holds a NUL.
constexpr size_t kSniffBytes = 4096;
constexpr size_t kReadChunkBytes = 256 * 1024;

// The first c at or after pos (memchr, fast in any build), or text.size().
size_t find(std::string_view text, char c, size_t pos) {
  if (pos >= text.size()) return text.size();
  const void* at = std::memchr(text.data() + pos, c, text.size() - pos);
  return at ? static_cast<size_t>(static_cast<const char*>(at) - text.data()) : text.size();
}

bool looks_binary(std::string_view bytes) {
  const size_t n = std::min<size_t>(bytes.size(), kSniffBytes);
  return std::memchr(bytes.data(), '\0', n) != nullptr;
}

// One pass over the text before nlohmann parses it, enforcing the limits of snapshot.hpp: a 50 MB
// string or a million-deep array is refused here, in the time it takes to find its end, instead of
// being built. Anything that is not JSON is left to the parser to describe.
Result<bool> check_limits(std::string_view text) {
  size_t depth = 0;
  size_t values = 0;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (c == '"') {
      // The string's end: the first quote that is not escaped. Its decoded size is estimated from
      // above: an escape counts 1 byte, a \u escape 3.
      size_t decoded = 0;
      size_t pos = i + 1;
      size_t quote = find(text, '"', pos);
      while (true) {
        const size_t backslash = find(text.substr(0, quote), '\\', pos);
        if (backslash == quote) {
          decoded += quote - pos;
          pos = quote;
          break;
        }
        decoded += backslash - pos;
        const bool unicode = backslash + 1 < n && text[backslash + 1] == 'u';
        decoded += unicode ? 3 : 1;
        pos = std::min(n, backslash + (unicode ? 6 : 2));
        if (pos > quote) quote = find(text, '"', pos);  // that quote was escaped
        if (decoded > kMaxSnapshotStringBytes) break;
      }
      if (decoded > kMaxSnapshotStringBytes) {
        return kb::catalog_error(
            "snapshot.error.long_string",
            {{"byte", std::to_string(i)}, {"size", text::describe_size(kMaxSnapshotStringBytes)}});
      }
      if (++values > kMaxSnapshotValues) break;
      i = pos + 1;
      continue;
    }
    if (c == '[' || c == '{') {
      if (++depth > kMaxSnapshotDepth) {
        return kb::catalog_error(
            "snapshot.error.too_deep",
            {{"depth", std::to_string(kMaxSnapshotDepth)}, {"byte", std::to_string(i)}});
      }
      if (++values > kMaxSnapshotValues) break;
    } else if (c == ']' || c == '}') {
      if (depth > 0) --depth;
    } else if (c == ',' || c == ':') {
      // Each separator precedes one more value (or key): a count that cannot be fooled low.
      if (++values > kMaxSnapshotValues) break;
    }
    ++i;
  }
  if (values > kMaxSnapshotValues) {
    return kb::catalog_error("snapshot.error.too_many_values",
                             {{"count", std::to_string(kMaxSnapshotValues)}});
  }
  return true;
}

Result<Snapshot> parse_document(std::string_view bytes) {
  if (bytes.size() > kMaxSnapshotBytes) {
    return kb::catalog_error("snapshot.error.too_large",
                             {{"size", text::describe_size(kMaxSnapshotBytes)}});
  }
  if (text::trim(bytes).empty()) return kb::catalog_error("snapshot.error.empty");
  if (looks_binary(bytes)) return kb::catalog_error("snapshot.error.binary");
  if (auto within = check_limits(bytes); !within) return within.error();
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(bytes);
  } catch (const nlohmann::json::parse_error& e) {
    return kb::catalog_error(
        e.byte >= bytes.size() ? "snapshot.error.truncated_json" : "snapshot.error.not_json",
        {{"byte", std::to_string(e.byte)}});
  } catch (const nlohmann::json::out_of_range&) {
    // 1e400: nlohmann refuses a number a double cannot hold.
    return kb::catalog_error("snapshot.error.number_out_of_range");
  } catch (const nlohmann::json::exception&) {
    return kb::catalog_error("snapshot.error.not_json_at_all");
  }
  return snapshot_from_json(document);
}

// A snapshot's bytes in any chunking, gzip or not, to the document, refusing as soon as a limit
// is crossed: a gzip bomb stops inflating at kMaxSnapshotBytes, /dev/zero after its first chunk.
class DocumentReader {
 public:
  Result<bool> feed(std::string_view bytes) {
    raw_ += bytes.size();
    if (raw_ > kMaxSnapshotFileBytes) return too_large();
    if (!decided_) {
      head_.append(bytes);
      if (head_.size() < 2) return true;
      decided_ = true;
      if (gzip::looks_compressed(head_))
        inflater_ = std::make_unique<gzip::Inflater>(kMaxSnapshotBytes);
      const std::string head = std::move(head_);
      return take(head);
    }
    return take(bytes);
  }

  Result<std::string> finish() {
    if (!decided_) {
      decided_ = true;
      if (auto taken = take(head_); !taken) return taken.error();
    }
    if (inflater_) {
      if (auto done = inflater_->finish(); !done) return done.error();
    }
    return std::move(document_);
  }

 private:
  static Error too_large() {
    return kb::catalog_error("snapshot.error.too_large",
                             {{"size", text::describe_size(kMaxSnapshotBytes)}});
  }

  Result<bool> take(std::string_view bytes) {
    if (inflater_) {
      if (auto fed = inflater_->feed(bytes, document_); !fed) return fed.error();
    } else {
      if (document_.size() + bytes.size() > kMaxSnapshotBytes) return too_large();
      document_.append(bytes);
    }
    if (!sniffed_ && document_.size() >= kSniffBytes) {
      sniffed_ = true;
      if (looks_binary(document_)) return kb::catalog_error("snapshot.error.binary");
    }
    return true;
  }

  std::unique_ptr<gzip::Inflater> inflater_;
  std::string head_;
  std::string document_;
  size_t raw_ = 0;
  bool decided_ = false;
  bool sniffed_ = false;
};

}  // namespace

Result<Snapshot> parse_snapshot(std::string_view bytes) {
  DocumentReader reader;
  if (auto fed = reader.feed(bytes); !fed) return fed.error();
  auto document = reader.finish();
  if (!document) return document.error();
  return parse_document(*document);
}

std::string serialize_snapshot(const Snapshot& snapshot) {
  return snapshot_to_json(snapshot).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n";
}

Result<Snapshot> load_snapshot_file(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(open_for_reading(path), &std::fclose);
  if (!file) {
    return kb::within(open_error(errno), "snapshot.error.cannot_read", {{"file", path}});
  }
  DocumentReader reader;
  std::string buffer(kReadChunkBytes, '\0');
  while (true) {
    const size_t n = std::fread(buffer.data(), 1, buffer.size(), file.get());
    if (n > 0) {
      if (auto fed = reader.feed(std::string_view(buffer.data(), n)); !fed) {
        return in_file(fed.error(), path);
      }
    }
    if (n < buffer.size()) {
      if (std::ferror(file.get())) {
        return kb::within(kb::catalog_error("error.os.read_error"), "snapshot.error.cannot_read",
                          {{"file", path}});
      }
      break;
    }
  }
  auto document = reader.finish();
  if (!document) return in_file(document.error(), path);
  auto snapshot = parse_document(*document);
  if (!snapshot) return in_file(snapshot.error(), path);
  return snapshot;
}

Result<bool> save_snapshot_file(const Snapshot& snapshot, const std::string& path) {
  const std::string text = serialize_snapshot(snapshot);
  if (path.size() > 3 && path.ends_with(".gz")) {
    auto compressed = gzip::compress(text);
    if (!compressed) return in_file(compressed.error(), path);
    return paths::write_file(path, *compressed);
  }
  return paths::write_file(path, text);
}

}  // namespace gpuvet::sys
