#include "probes/copy_version.hpp"

#include <cctype>

#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/version.hpp"

namespace gpuvet::probes {

namespace {

bool under(const std::string& path, const std::string& dir, bool windows) {
  const std::string p = paths::comparison_key(path, windows);
  const std::string d = paths::comparison_key(dir, windows);
  return !d.empty() && p.starts_with(d + "/");
}

// The digits after a prefix, up to the first non-digit: "cudnn64_8.dll" after "cudnn64_" is "8".
std::string digits_after(const std::string& lower, std::string_view prefix) {
  if (!lower.starts_with(prefix)) return {};
  std::string out;
  for (size_t i = prefix.size();
       i < lower.size() && std::isdigit(static_cast<unsigned char>(lower[i])); ++i) {
    out.push_back(lower[i]);
  }
  return out;
}

// What a Windows cudart DLL's name says (shared/reference/windows_dll_names.csv): up to 10.2 the
// name carries major.minor (cudart64_90.dll, cudart64_101.dll); every 11.x ships cudart64_110.dll
// and 12.x cudart64_12.dll, which say only the major.
std::optional<std::string> cudart_dll_version(const std::string& digits) {
  if (digits.empty()) return std::nullopt;
  if (digits == "110") return "11";
  if (digits.size() == 2 && digits[0] == '9') return digits.substr(0, 1) + "." + digits.substr(1);
  if (digits.size() == 3 && digits.starts_with("10")) return "10." + digits.substr(2);
  if (digits.size() <= 2) return digits;
  return std::nullopt;
}

std::optional<std::string> cudnn_version(const Facts& facts, const std::string& lower,
                                         const std::string& path,
                                         const std::optional<std::string>& file_version,
                                         bool windows) {
  const std::string major =
      windows ? digits_after(lower, "cudnn64_") : digits_after(lower, "libcudnn.so.");
  const auto agrees = [&](const std::optional<std::string>& v) {
    return v && version::is_dotted(*v) && (major.empty() || version::major(*v) == major);
  };
  // libcudnn.so.8.2.4, or a version resource that is cuDNN's own (8.1.0.77 in cudnn64_8.dll).
  if (agrees(file_version) && file_version->find('.') != std::string::npos) {
    return version::prefix(*file_version, 3);
  }
  const std::string dir = paths::parent(path);
  const std::string dir_key = paths::comparison_key(dir, windows);
  for (const auto& c : facts.cudnn) {
    if (paths::comparison_key(c.location, windows) == dir_key && agrees(c.version))
      return c.version;
  }
  // A cuDNN copied into a toolkit: the DLL in bin, its cudnn.h (cudnn_version.h) in include.
  for (const auto& t : facts.cuda_toolkits) {
    if (t.source == "pip" || t.source == "conda" || !under(path, t.root, windows)) continue;
    for (const auto& c : facts.cudnn) {
      if ((under(c.location, t.root, windows) ||
           paths::comparison_key(c.location, windows) == paths::comparison_key(t.root, windows)) &&
          agrees(c.version)) {
        return c.version;
      }
    }
  }
  // libcudnn.so.8 with nothing more: the major is all that is known.
  if (agrees(file_version)) return file_version;
  return std::nullopt;
}

std::optional<std::string> cudart_version(const Facts& facts, const std::string& lower,
                                          const std::string& path,
                                          const std::optional<std::string>& file_version,
                                          bool windows) {
  // libcudart.so.11.8.89 names its own full version.
  if (!windows && file_version && text::split(*file_version, '.').size() >= 3) return file_version;
  // A toolkit's own runtime: the toolkit's version.
  for (const auto& t : facts.cuda_toolkits) {
    if (t.version && version::is_dotted(*t.version) && under(path, t.root, windows)) {
      return t.version;
    }
  }
  if (!windows) return file_version;
  // cudart's version resource is NVIDIA's file numbering (6.14.11.10010), not CUDA's.
  return cudart_dll_version(digits_after(lower, "cudart64_"));
}

}  // namespace

std::optional<std::string> copy_version(const Facts& facts, const std::string& name,
                                        const std::string& path,
                                        const std::optional<std::string>& file_version) {
  const bool windows = facts.os.family == "windows";
  const std::string lower = text::to_lower(name);
  if (lower.starts_with("libcudnn.so") || lower.starts_with("cudnn64_")) {
    return cudnn_version(facts, lower, path, file_version, windows);
  }
  if (lower.starts_with("libcudart.so") || lower.starts_with("cudart64_")) {
    return cudart_version(facts, lower, path, file_version, windows);
  }
  return file_version;
}

}  // namespace gpuvet::probes
