#pragma once
// gzip through zlib, with a ceiling on the inflated size so that a crafted file cannot exhaust
// memory.
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace gpuvet::gzip {

inline constexpr size_t kMaxInflatedBytes = size_t{512} << 20;

bool looks_compressed(std::string_view bytes);
Result<std::string> decompress(std::string_view bytes, size_t max_output = kMaxInflatedBytes);
Result<std::string> compress(std::string_view bytes);

}  // namespace gpuvet::gzip
