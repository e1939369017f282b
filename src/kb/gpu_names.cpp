#include "kb/gpu_names.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

#include "core/text.hpp"

namespace gpuvet::kb {

namespace {

bool is_hex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) != 0;
  });
}

// Four hex digits right after `marker` (searched case-insensitively), as the device id.
std::optional<std::string> id_after(const std::string& lower, std::string_view marker) {
  for (size_t at = lower.find(marker); at != std::string::npos; at = lower.find(marker, at + 1)) {
    const std::string digits = lower.substr(at + marker.size(), 4);
    const size_t after = at + marker.size() + 4;
    const bool ends =
        after >= lower.size() || !std::isxdigit(static_cast<unsigned char>(lower[after]));
    // The marker starts a token ("0x" in "0x2504", not in "10x"), and the id is not the vendor's.
    const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(lower[at - 1]));
    if (digits.size() == 4 && is_hex(digits) && ends && starts && digits != "10de") return digits;
  }
  return std::nullopt;
}

std::string erase_all(std::string s, std::string_view what) {
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what))
    s.erase(at, what.size());
  return s;
}

// lspci's text after "NVIDIA Corporation": "GA106 [GeForce RTX 3060 Lite Hash Rate] (rev a1)".
void read_lspci(std::string rest, GpuQuery& q) {
  if (const size_t rev = text::to_lower(rest).find("(rev "); rev != std::string::npos)
    rest.erase(rev);
  // lspci -nn's "[10de:2504]" was read as the id already.
  if (const size_t id = text::to_lower(rest).find("[10de:"); id != std::string::npos)
    rest.erase(id, rest.find(']', id) == std::string::npos ? std::string::npos
                                                           : rest.find(']', id) - id + 1);
  const size_t open = rest.find('[');
  const size_t close = rest.rfind(']');
  if (open != std::string::npos && close != std::string::npos && close > open) {
    q.chip = std::string(text::trim(rest.substr(0, open)));
    q.name = std::string(text::trim(rest.substr(open + 1, close - open - 1)));
    return;
  }
  rest = std::string(text::trim(rest));
  // An id lspci has no name for: "NVIDIA Corporation Device 2e12".
  if (text::starts_with_icase(rest, "device ") && is_hex(rest.substr(7)) && rest.size() == 11) {
    if (!q.device_id) q.device_id = text::to_lower(rest.substr(7));
    return;
  }
  q.name = rest;
}

bool is_brand(std::string_view w) {
  return w == "nvidia" || w == "geforce" || w == "tesla" || w == "quadro";
}

// "16gb", "144g": a board's memory, not another GPU.
bool is_memory_size(std::string_view w) {
  const size_t letters = w.ends_with("gb") ? 2 : (w.ends_with("g") ? 1 : 0);
  return letters > 0 && w.size() > letters && text::is_digits(w.substr(0, w.size() - letters));
}

bool is_board_word(std::string_view w) {
  static constexpr std::array<std::string_view, 27> words = {
      "sxm", "pcie",   "nvl",  "lc",  "active", "dgxs",   "fhhl", "mxm",  "laptop",
      "gpu", "mobile", "with", "max", "q",      "design", "lite", "hash", "rate",
      "lhr", "oem",    "hbm",  "smx", "mig",    "c",      "m",    "s",    "t"};
  if (std::find(words.begin(), words.end(), w) != words.end()) return true;
  // sxm2 … sxm6, hbm2, hbm2e, hbm3, hbm3e, gddr6, gddr6x
  for (std::string_view stem : {"sxm", "hbm", "gddr"}) {
    if (w.starts_with(stem) && w.size() > stem.size() &&
        std::isdigit(static_cast<unsigned char>(w[stem.size()])))
      return true;
  }
  return false;
}

// "1650ti" -> "1650 ti", "4090d" -> "4090 d", "gtx1080" -> "gtx 1080": what users type
// without the space the driver puts.
void push_split(std::vector<std::string>& out, const std::string& w) {
  for (std::string_view series : {"gtx", "rtx", "gts", "gt", "mx"}) {
    if (w.size() > series.size() && w.starts_with(series) &&
        std::isdigit(static_cast<unsigned char>(w[series.size()]))) {
      out.emplace_back(series);
      push_split(out, w.substr(series.size()));
      return;
    }
  }
  // Tesla Kepler boards: K20c, K20Xm, K40m ("c" active cooling, "m" passive): the GPU is K20, K20X.
  if (w.size() >= 4 && w[0] == 'k' && text::is_digits(w.substr(1, 2)) &&
      std::string_view("cmst").find(w.back()) != std::string_view::npos &&
      (w.size() == 4 || (w.size() == 5 && w[3] == 'x'))) {
    out.push_back(w.substr(0, w.size() - 1));
    out.push_back(w.substr(w.size() - 1));
    return;
  }
  for (std::string_view variant : {"super", "ti", "d"}) {
    if (w.size() > variant.size() && w.ends_with(variant) &&
        text::is_digits(w.substr(0, w.size() - variant.size()))) {
      out.push_back(w.substr(0, w.size() - variant.size()));
      out.emplace_back(variant);
      return;
    }
  }
  out.push_back(w);
}

std::vector<std::string> key_words(std::string_view name) {
  std::string lower = erase_all(erase_all(text::to_lower(name), "(tm)"), "(r)");
  for (char& c : lower) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = ' ';
  }
  std::vector<std::string> out;
  for (const auto& w : text::split(lower, ' ')) {
    if (w.empty() || is_brand(w) || is_memory_size(w)) continue;
    push_split(out, w);
  }
  return out;
}

// The capability a log line states for the device: TensorFlow's and llama.cpp's "compute
// capability 8.6", TensorFlow 1's "major: 5 minor: 2", PyTorch's "CUDA capability sm_120".
std::optional<std::string> stated_capability(const std::string& lower) {
  const auto digits_at = [&](size_t at) {
    size_t end = at;
    while (end < lower.size() && std::isdigit(static_cast<unsigned char>(lower[end])))
      ++end;
    return lower.substr(at, end - at);
  };
  for (std::string_view marker :
       {"compute capability: ", "compute capability ", "computecapability: "}) {
    if (const size_t at = lower.find(marker); at != std::string::npos) {
      const std::string major = digits_at(at + marker.size());
      const size_t dot = at + marker.size() + major.size();
      if (major.empty() || dot >= lower.size() || lower[dot] != '.') continue;
      const std::string minor = digits_at(dot + 1);
      if (!minor.empty()) return major + "." + minor;
    }
  }
  // TensorFlow 1's "major: 5 minor: 2", torch's _CudaDeviceProperties "major=8, minor=0".
  for (const auto& [major_key, minor_key] :
       {std::pair<std::string_view, std::string_view>{"major: ", "minor: "},
        {"major=", "minor="}}) {
    const size_t at = lower.find(major_key);
    if (at == std::string::npos) continue;
    const std::string major = digits_at(at + major_key.size());
    const size_t minor_at = lower.find(minor_key, at);
    if (major.empty() || minor_at == std::string::npos || minor_at > at + 16) continue;
    const std::string minor = digits_at(minor_at + minor_key.size());
    if (!minor.empty()) return major + "." + minor;
  }
  // PyTorch's "CUDA capability sm_120" and llama.cpp-style "(sm_120, ...)" after the name; not
  // a bare sm_XX, which may be one of a build's list.
  for (std::string_view marker : {"capability sm_", "(sm_"}) {
    if (const size_t at = lower.find(marker); at != std::string::npos) {
      const std::string sm = digits_at(at + marker.size());
      if (sm.size() >= 2) return sm.substr(0, sm.size() - 1) + "." + sm.substr(sm.size() - 1);
    }
  }
  return std::nullopt;
}

// NVML's pciDeviceId, the device id above the vendor's: "0x232110DE".
std::optional<std::string> nvml_pci_device(const std::string& lower) {
  for (size_t at = lower.find("0x"); at != std::string::npos; at = lower.find("0x", at + 2)) {
    const std::string digits = lower.substr(at + 2, 8);
    if (digits.size() == 8 && is_hex(digits) && digits.ends_with("10de") &&
        (at + 10 >= lower.size() || !std::isxdigit(static_cast<unsigned char>(lower[at + 10]))))
      return digits.substr(0, 4);
  }
  return std::nullopt;
}

// What tools print around a GPU's name, before it: nvidia-smi -L's "GPU 0: ", -q's "Product Name
// : ", deviceQuery's and llama.cpp's "Device 0: ", Ultralytics' "CUDA:0 (", TensorFlow's
// "name: ", gpumodeswitch's "Adapter: ".
size_t name_start(const std::string& lower) {
  for (std::string_view marker : {"product name", "device name", "name: ", "name='", "adapter: "}) {
    if (const size_t at = lower.find(marker); at != std::string::npos) {
      size_t from = at + marker.size();
      while (from < lower.size() && (lower[from] == ' ' || lower[from] == ':'))
        ++from;
      return from;
    }
  }
  // nvidia-smi's table row: "|   0  NVIDIA B200     On  | 00000000:05:00.0 Off |".
  size_t at = 0;
  if (lower.starts_with("|")) {
    at = lower.find_first_not_of(' ', 1);
    const size_t digits = lower.find_first_not_of("0123456789", at);
    if (at == std::string::npos || digits == at || digits == std::string::npos) return 0;
    return lower.find_first_not_of(' ', digits);
  }
  // "GPU 0: ", "GPU 0,1,2: ", "Device 0: ", "Device: ", "CUDA:0 (", "0: ".
  for (std::string_view word : {"gpu ", "gpu", "device ", "device", "cuda:"}) {
    if (lower.starts_with(word)) {
      at = word.size();
      break;
    }
  }
  const size_t digits = at;
  while (at < lower.size() &&
         (std::isdigit(static_cast<unsigned char>(lower[at])) || (at > digits && lower[at] == ',')))
    ++at;
  const bool numbered = at > digits;
  if (lower.compare(at, 2, ": ") == 0 && (numbered || digits > 0)) return at + 2;
  if (lower.compare(at, 2, " (") == 0 && numbered) return at + 2;
  return 0;
}

// ... and after it: ", pci bus id", ", compute capability", " (UUID: ", " with CUDA capability",
// " major: ", " computeCapability", Ultralytics' ", 16376MiB)", gpumodeswitch's ids.
size_t name_end(const std::string& lower, size_t from) {
  size_t end = lower.size();
  for (std::string_view marker :
       {",", " (uuid", " with cuda capability", " major:", " computecapability", "  ", " (10de,",
        " (sm_", "'", "\xef\xbc\x9a"}) {
    end = std::min(end, lower.find(marker, from));
  }
  // In a framed line, what follows the name in parentheses is the tool's detail ("(AD102 /
  // 0x26b9)"); a bare name keeps its own ("Orin (nvgpu)", "GB10 (DGX Spark)").
  if (from > 0) end = std::min(end, lower.find(" (", from));
  return end;
}

std::string without_quotes(std::string_view s) {
  s = text::trim(s);
  while (!s.empty() && (s.front() == '"' || s.front() == '\''))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == '"' || s.back() == '\'' || s.back() == ')'))
    s.remove_suffix(1);
  return std::string(text::trim(s));
}

// pci.ids' own form without lspci's "NVIDIA Corporation": "GA102 [GeForce RTX 3090]".
bool is_chip_and_name(const std::string& text) {
  const size_t open = text.find('[');
  if (open == std::string::npos || text.find(']', open) == std::string::npos) return false;
  const std::string_view chip = text::trim(std::string_view(text).substr(0, open));
  return chip.size() >= 4 && std::isupper(static_cast<unsigned char>(chip[0])) &&
         std::isupper(static_cast<unsigned char>(chip[1])) &&
         std::all_of(chip.begin(), chip.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace

GpuQuery parse_gpu_query(std::string_view input) {
  GpuQuery q;
  std::string text(text::trim(input));
  const std::string lower = text::to_lower(text);
  q.device_id = id_after(lower, "ven_10de&dev_");
  if (!q.device_id) q.device_id = id_after(lower, "10de:");
  if (!q.device_id) q.device_id = id_after(lower, "(10de,");  // gpumodeswitch: (10DE,17FD,…)
  if (!q.device_id) q.device_id = id_after(lower, "10de ");   // "10DE 2C18-10DE 0000"
  if (!q.device_id) q.device_id = nvml_pci_device(lower);
  if (!q.device_id) q.device_id = id_after(lower, "0x");
  if (q.device_id && (lower.starts_with("pci\\") || lower.size() <= 9)) return q;
  q.stated_cc = stated_capability(lower);
  if (const size_t at = lower.find("nvidia corporation"); at != std::string::npos) {
    read_lspci(text.substr(at + std::string_view("nvidia corporation").size()), q);
  } else if (is_chip_and_name(text)) {
    read_lspci(text, q);
  } else {
    const size_t from = name_start(lower);
    q.name = without_quotes(text.substr(from, name_end(lower, from) - from));
  }
  for (std::string_view ellipsis : {"...", "\u2026"}) {
    if (q.name.ends_with(ellipsis)) {
      q.name = std::string(text::trim(q.name.substr(0, q.name.size() - ellipsis.size())));
      q.truncated = true;
    }
  }
  return q;
}

std::string gpu_key(std::string_view name) {
  return text::join(key_words(name), " ");
}

std::string gpu_board_key(std::string_view name) {
  std::vector<std::string> kept;
  for (auto& w : key_words(name)) {
    if (!is_board_word(w)) kept.push_back(std::move(w));
  }
  return text::join(kept, " ");
}

}  // namespace gpuvet::kb
