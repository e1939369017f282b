#pragma once
// Small string helpers shared by probes, checks and renderers.
#include <string>
#include <string_view>
#include <vector>

namespace gpuvet::text {

std::vector<std::string> split(std::string_view s, char separator);
std::string_view trim(std::string_view s);
// Appends a Unicode code point as UTF-8.
void append_utf8(std::string& out, char32_t code_point);
std::string to_lower(std::string_view s);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
// Every occurrence of `from` (not empty) replaced by `to`.
std::string replace_all(std::string_view s, std::string_view from, std::string_view to);
bool starts_with_icase(std::string_view s, std::string_view prefix);
bool contains_icase(std::string_view haystack, std::string_view needle);
// True when every byte is an ASCII digit and the string is not empty.
bool is_digits(std::string_view s);
// A size limit as messages name it: "4 GiB", "64 MiB", "1000 bytes".
std::string describe_size(size_t bytes);

}  // namespace gpuvet::text

namespace gpuvet::text {
// Terminal columns a UTF-8 string takes: East Asian wide characters count two.
size_t display_width(std::string_view s);
}  // namespace gpuvet::text
