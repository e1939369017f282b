#pragma once
// Dotted version numbers ("9.0.176", "11.8", "9").
#include <string_view>

namespace gpuvet::version {

// Numeric, part by part: "9.0.176" < "10.1.243"; a missing part counts as 0.
int compare(std::string_view a, std::string_view b);
// The parts both versions have are equal: "9" agrees with "9.19.0", "8.9.7" not with "8.6.0".
bool agree(std::string_view a, std::string_view b);

}  // namespace gpuvet::version
