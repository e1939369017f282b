// The live System on Windows: the registry. Always the 64-bit view, values unexpanded.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/text.hpp"
#include "core/win32_text.hpp"
#include "system/live_windows_internal.hpp"

namespace gpuvet::sys::windows {

namespace {

// "HKLM/SOFTWARE/NVIDIA Corporation" -> (HKEY_LOCAL_MACHINE, L"SOFTWARE\\NVIDIA Corporation").
std::optional<std::pair<HKEY, std::wstring>> split_key(std::string_view key) {
  const size_t cut = key.find_first_of("/\\");
  const std::string root = text::to_lower(key.substr(0, cut));
  HKEY hive = nullptr;
  if (root == "hklm" || root == "hkey_local_machine") hive = HKEY_LOCAL_MACHINE;
  if (root == "hkcu" || root == "hkey_current_user") hive = HKEY_CURRENT_USER;
  if (!hive) return std::nullopt;
  std::wstring sub = cut == std::string_view::npos ? L"" : win32::native_path(key.substr(cut + 1));
  while (!sub.empty() && sub.back() == L'\\')
    sub.pop_back();
  return std::pair{hive, std::move(sub)};
}

// A value as probes see it. Strings stay unexpanded (probes expand %VAR% themselves, against the
// environment they were given); a multi-string is joined with ';' like a Path.
std::optional<RegistryValue> decode_value(DWORD type, const std::vector<BYTE>& data) {
  const auto* chars = reinterpret_cast<const wchar_t*>(data.data());
  const size_t count = data.size() / sizeof(wchar_t);
  switch (type) {
    case REG_SZ:
    case REG_EXPAND_SZ:
      return win32::narrow(up_to_nul(chars, count));
    case REG_MULTI_SZ: {
      std::vector<std::string> parts;
      for (const auto& part : text::split(win32::narrow(std::wstring_view(chars, count)), '\0')) {
        if (!part.empty()) parts.push_back(part);
      }
      return text::join(parts, ";");
    }
    case REG_DWORD: {
      if (data.size() < sizeof(std::uint32_t)) return std::nullopt;
      std::uint32_t value = 0;
      std::memcpy(&value, data.data(), sizeof value);
      return std::int64_t{value};
    }
    case REG_QWORD: {
      if (data.size() < sizeof(std::uint64_t)) return std::nullopt;
      std::uint64_t value = 0;
      std::memcpy(&value, data.data(), sizeof value);
      return static_cast<std::int64_t>(value);
    }
    default:
      return std::nullopt;  // binary and other types say nothing a probe reads
  }
}

struct KeySizes {
  DWORD subkeys = 0, longest_subkey = 0, values = 0, longest_name = 0, largest_data = 0;
};
std::optional<KeySizes> key_sizes(HKEY key) {
  KeySizes s;
  if (RegQueryInfoKeyW(key, nullptr, nullptr, nullptr, &s.subkeys, &s.longest_subkey, nullptr,
                       &s.values, &s.longest_name, &s.largest_data, nullptr,
                       nullptr) != ERROR_SUCCESS) {
    return std::nullopt;
  }
  return s;
}

}  // namespace

// Always the 64-bit view, so that a 32-bit build sees what 64-bit drivers and installers wrote.
Key open_key(const std::string& key) {
  Key opened;
  const auto where = split_key(key);
  if (!where) return opened;
  if (RegOpenKeyExW(where->first, where->second.c_str(), 0, KEY_READ | KEY_WOW64_64KEY,
                    opened.out()) != ERROR_SUCCESS) {
    *opened.out() = nullptr;
  }
  return opened;
}

// All values of an open key. A value that grows while it is read is asked again with the new size.
RegistryValues read_values(HKEY key) {
  RegistryValues values;
  auto sizes = key_sizes(key);
  for (DWORD index = 0; sizes;) {
    std::wstring name(sizes->longest_name + 1, L'\0');
    std::vector<BYTE> data(sizes->largest_data);
    auto name_length = static_cast<DWORD>(name.size());
    auto data_size = static_cast<DWORD>(data.size());
    DWORD type = 0;
    const LSTATUS status = RegEnumValueW(key, index, name.data(), &name_length, nullptr, &type,
                                         data.data(), &data_size);
    if (status == ERROR_MORE_DATA) {
      sizes = key_sizes(key);
      continue;
    }
    if (status != ERROR_SUCCESS) break;  // ERROR_NO_MORE_ITEMS, or the key went away
    data.resize(data_size);
    if (auto value = decode_value(type, data)) {
      values.emplace(win32::narrow(std::wstring_view(name.data(), name_length)), std::move(*value));
    }
    ++index;
  }
  return values;
}

std::vector<std::string> read_subkeys(HKEY key) {
  std::vector<std::string> names;
  const auto sizes = key_sizes(key);
  if (!sizes) return names;
  std::wstring name(sizes->longest_subkey + 1, L'\0');
  for (DWORD index = 0;; ++index) {
    auto length = static_cast<DWORD>(name.size());
    if (RegEnumKeyExW(key, index, name.data(), &length, nullptr, nullptr, nullptr, nullptr) !=
        ERROR_SUCCESS) {
      break;
    }
    names.push_back(win32::narrow(std::wstring_view(name.data(), length)));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<std::string> string_value(const RegistryValues& values, const std::string& name) {
  const auto it = values.find(name);
  if (it == values.end() || !std::holds_alternative<std::string>(it->second)) return std::nullopt;
  return std::get<std::string>(it->second);
}

}  // namespace gpuvet::sys::windows
