#include "core/legacy_text.hpp"

#include <iconv.h>

namespace gpuvet::text {

namespace {

// One converter per thread, opened on first use: a log in GBK converts many lines.
iconv_t gbk_converter() {
  struct Converter {
    iconv_t handle = iconv_open("UTF-8", "GBK");
    ~Converter() {
      if (handle != reinterpret_cast<iconv_t>(-1)) iconv_close(handle);
    }
  };
  thread_local const Converter converter;
  return converter.handle;
}

}  // namespace

std::optional<std::string> gbk_to_utf8(std::string_view bytes) {
  const iconv_t opened = gbk_converter();
  if (opened == reinterpret_cast<iconv_t>(-1)) return std::nullopt;
  // Back to the initial state: a failed line must not leave half a character behind.
  iconv(opened, nullptr, nullptr, nullptr, nullptr);
  std::string in(bytes);
  // A GBK character is one or two bytes and at most three in UTF-8.
  std::string out(bytes.size() * 2 + 4, '\0');
  char* in_at = in.data();
  size_t in_left = in.size();
  char* out_at = out.data();
  size_t out_left = out.size();
  if (iconv(opened, &in_at, &in_left, &out_at, &out_left) == static_cast<size_t>(-1) ||
      in_left != 0) {
    return std::nullopt;
  }
  out.resize(out.size() - out_left);
  return out;
}

}  // namespace gpuvet::text
