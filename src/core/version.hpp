#pragma once
// Dotted version numbers ("9.0.176", "11.8", "9").
#include <string>
#include <string_view>

namespace gpuvet::version {

// Numeric, part by part: "9.0.176" < "10.1.243"; a missing part counts as 0.
int compare(std::string_view a, std::string_view b);
// The parts both versions have are equal: "9" agrees with "9.19.0", "8.9.7" not with "8.6.0".
bool agree(std::string_view a, std::string_view b);
// Digits separated by dots, nothing else: "12.4.1", "8"; not "", "12.x", "2.1.0+cu121".
bool is_dotted(std::string_view v);
// The first `parts` parts: prefix("12.4.1", 2) == "12.4"; a shorter version stays as it is.
std::string prefix(std::string_view v, size_t parts);
// Major and minor, a bare major counting as X.0: "10" -> "10.0", "10.1.243" -> "10.1" (TensorFlow's
// Windows table writes CUDA 10.0 as "10").
std::string major_minor(std::string_view v);
// The first part: major("12.4.1") == "12".
std::string major(std::string_view v);

}  // namespace gpuvet::version
