#pragma once
// Text in the code page of a Chinese Windows (GBK, code page 936), read as UTF-8. Python and
// cmd.exe write it there when output goes to a file (`python train.py > log.txt 2>&1`), and
// Windows' own messages ("找不到指定的模块。") come in it. The conversion is platform code:
// iconv on POSIX (legacy_text_posix.cpp), MultiByteToWideChar on Windows
// (legacy_text_windows.cpp).
#include <optional>
#include <string>
#include <string_view>

namespace gpuvet::text {

// Whether the bytes are well-formed UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF).
bool is_utf8(std::string_view bytes);

// The UTF-8 of `bytes` read as GBK; none when they are not GBK (a byte sequence the code page
// does not define, or no converter on this system).
std::optional<std::string> gbk_to_utf8(std::string_view bytes);

}  // namespace gpuvet::text
