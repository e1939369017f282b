#include "core/legacy_text.hpp"

#include <iconv.h>

#include <cerrno>
#include <memory>

namespace gpuvet::text {

std::optional<std::string> gbk_to_utf8(std::string_view bytes) {
  const iconv_t opened = iconv_open("UTF-8", "GBK");
  if (opened == reinterpret_cast<iconv_t>(-1)) return std::nullopt;
  const std::unique_ptr<void, int (*)(iconv_t)> converter(opened, &iconv_close);
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
