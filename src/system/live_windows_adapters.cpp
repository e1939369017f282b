// The live System on Windows: the display adapters, through SetupAPI, whatever their vendor.
#include <windows.h>

#include <setupapi.h>
// INITGUID makes devguid.h define GUID_DEVCLASS_DISPLAY here (selectany, so another file doing
// the same does not clash) instead of needing libuuid at link time.
#include <initguid.h>

#include <devguid.h>

#include <optional>
#include <string>
#include <vector>

#include "core/win32_text.hpp"
#include "system/live_windows_internal.hpp"

namespace gpuvet::sys::windows {

namespace {

struct DeviceSetTraits {
  using Value = HDEVINFO;
  static Value none() { return INVALID_HANDLE_VALUE; }
  static bool valid(Value h) { return h != INVALID_HANDLE_VALUE && h != nullptr; }
  static void release(Value h) { SetupDiDestroyDeviceInfoList(h); }
};

using DeviceSet = Owned<DeviceSetTraits>;

// A device's registry property as UTF-8; for a multi-string (the hardware IDs) its first string.
std::optional<std::string> device_property(HDEVINFO set, SP_DEVINFO_DATA& device, DWORD property) {
  DWORD type = 0;
  DWORD size = 0;
  SetupDiGetDeviceRegistryPropertyW(set, &device, property, &type, nullptr, 0, &size);
  if (size == 0) return std::nullopt;
  std::vector<BYTE> data(size);
  if (!SetupDiGetDeviceRegistryPropertyW(set, &device, property, &type, data.data(), size, &size)) {
    return std::nullopt;
  }
  const auto* chars = reinterpret_cast<const wchar_t*>(data.data());
  std::string value = win32::narrow(up_to_nul(chars, size / sizeof(wchar_t)));
  if (value.empty()) return std::nullopt;
  return value;
}

DisplayAdapter describe_adapter(HDEVINFO set, SP_DEVINFO_DATA& device) {
  DisplayAdapter adapter;
  adapter.name = device_property(set, device, SPDRP_FRIENDLYNAME);
  if (!adapter.name) adapter.name = device_property(set, device, SPDRP_DEVICEDESC);
  adapter.pnp_id = device_property(set, device, SPDRP_HARDWAREID);
  // The driver's own key (Class\{guid}\NNNN) names its provider and version.
  const Key driver(SetupDiOpenDevRegKey(set, &device, DICS_FLAG_GLOBAL, 0, DIREG_DRV, KEY_READ));
  if (driver.valid()) {
    const RegistryValues values = read_values(driver.get());
    adapter.provider = string_value(values, "ProviderName");
    adapter.driver_version = string_value(values, "DriverVersion");
  }
  return adapter;
}

}  // namespace

// Every present display adapter, whatever its vendor: the basic display driver standing in for
// a missing NVIDIA driver is an answer too. Empty when there are none; nullopt when SetupAPI
// itself could not be asked.
std::optional<std::vector<DisplayAdapter>> present_display_adapters() {
  const DeviceSet set(
      SetupDiGetClassDevsW(&GUID_DEVCLASS_DISPLAY, nullptr, nullptr, DIGCF_PRESENT));
  if (!set.valid()) return std::nullopt;
  std::vector<DisplayAdapter> adapters;
  SP_DEVINFO_DATA device{};
  device.cbSize = sizeof device;
  for (DWORD index = 0; SetupDiEnumDeviceInfo(set.get(), index, &device); ++index) {
    adapters.push_back(describe_adapter(set.get(), device));
  }
  return adapters;
}

}  // namespace gpuvet::sys::windows
