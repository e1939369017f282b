#pragma once
// Version encodings the knowledge base describes.
#include <optional>
#include <string>

#include "kb/kb.hpp"

namespace gpuvet::kb {

// cudnnGetVersion()'s number as "major.minor.patch" (data/cudnn_version_encoding.csv); nullopt
// when no row of the table decodes it to a major within its range.
std::optional<std::string> decode_cudnn_version(const Kb& kb, long long value);

}  // namespace gpuvet::kb
