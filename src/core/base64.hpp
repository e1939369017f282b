#pragma once
// Base64 (RFC 4648 §4, with padding): binary data through a channel that carries only text lines.
#include <optional>
#include <string>
#include <string_view>

namespace gpuvet::base64 {

std::string encode(std::string_view bytes);
// nullopt for anything that is not canonical padded base64 (whitespace included).
std::optional<std::string> decode(std::string_view text);

}  // namespace gpuvet::base64
