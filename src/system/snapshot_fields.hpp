#pragma once
// The JSON fields of the snapshot and of every System answer in it, declared once: the snapshot
// writer, its strict reader and the native child's answers (snapshot fragments) all walk these.
#include <climits>

#include "core/json_fields.hpp"
#include "facts/fact_fields.hpp"
#include "system/snapshot.hpp"

namespace gpuvet {

template <>
struct JsonFields<sys::CpuFeatures> {
  using T = sys::CpuFeatures;
  static constexpr auto fields =
      std::make_tuple(json_field("vendor", &T::vendor), json_field("usable", &T::usable));
};

template <>
struct JsonFields<sys::HostInfo> {
  using T = sys::HostInfo;
  static constexpr auto fields = std::make_tuple(
      json_field("os", &T::os).required(), json_field("os_name", &T::os_name),
      json_field("os_version", &T::os_version), json_field("os_release", &T::os_release),
      json_field("arch", &T::arch), json_field("wsl", &T::wsl).always(),
      json_field("container", &T::container),
      json_field("remote_session", &T::remote_session).always(), json_field("cwd", &T::cwd),
      json_field("cpu", &T::cpu), json_field("hostname", &T::hostname));
};

template <>
struct JsonFields<sys::ElfInfo> {
  using T = sys::ElfInfo;
  static constexpr auto fields =
      std::make_tuple(json_field("bits", &T::bits).within(0, 65535),
                      json_field("machine", &T::machine).within(0, 65535),
                      json_field("soname", &T::soname), json_field("needed", &T::needed),
                      json_field("runpath", &T::runpath), json_field("rpath", &T::rpath));
};

template <>
struct JsonFields<sys::GpuCode> {
  using T = sys::GpuCode;
  static constexpr auto fields = std::make_tuple(
      json_field("sass", &T::sass), json_field("ptx", &T::ptx), json_field("lto", &T::lto));
};

template <>
struct JsonFields<sys::PeVersion> {
  using T = sys::PeVersion;
  static constexpr auto fields =
      std::make_tuple(json_field("file_version", &T::file_version),
                      json_field("product_version", &T::product_version));
};

template <>
struct JsonFields<sys::FileEntry> {
  using T = sys::FileEntry;
  static constexpr auto fields = std::make_tuple(
      json_field("dir", &T::dir), json_field("other", &T::other), json_field("size", &T::size),
      json_field("link", &T::link), json_field("text", &T::text), json_field("head", &T::head),
      json_field("error", &T::error), json_field("read_write", &T::read_write),
      json_field("pe", &T::pe), json_field("elf", &T::elf), json_field("gpu_code", &T::gpu_code),
      json_field("gpu_code_error", &T::gpu_code_error));
};

template <>
struct JsonFields<sys::DriverAnswer> {
  using T = sys::DriverAnswer;
  static constexpr auto fields = std::make_tuple(
      json_field("installed", &T::installed).always(), json_field("version", &T::version),
      json_field("cuda_driver_version", &T::cuda_driver_version), json_field("error", &T::error));
};

template <>
struct JsonFields<sys::DisplayAdapter> {
  using T = sys::DisplayAdapter;
  static constexpr auto fields = std::make_tuple(
      json_field("name", &T::name), json_field("provider", &T::provider),
      json_field("driver_version", &T::driver_version), json_field("pnp_id", &T::pnp_id));
};

template <>
struct JsonFields<sys::ProgramOutput> {
  using T = sys::ProgramOutput;
  static constexpr auto fields = std::make_tuple(json_field("output", &T::output),
                                                 json_field("exit", &T::exit_code).within(0, 255),
                                                 json_field("error", &T::error));
};

template <>
struct JsonFields<sys::LoadAnswer> {
  using T = sys::LoadAnswer;
  static constexpr auto fields =
      std::make_tuple(json_field("ok", &T::ok).always(), json_field("path", &T::path),
                      json_field("version", &T::version), json_field("error", &T::error),
                      json_field("init_code", &T::init_code).within(INT_MIN, INT_MAX));
};

// The document, less its "schema" (written first, checked before anything else is read).
template <>
struct JsonFields<sys::Snapshot> {
  using T = sys::Snapshot;
  static constexpr auto fields =
      std::make_tuple(json_field("taken_at", &T::taken_at), json_field("host", &T::host).required(),
                      json_field("env", &T::env), json_field("files", &T::files),
                      json_field("registry", &T::registry), json_field("ld_cache", &T::ld_cache),
                      json_field("driver", &T::driver), json_field("gpus", &T::gpus),
                      json_field("display_adapters", &T::display_adapters),
                      json_field("loads", &T::loads), json_field("programs", &T::programs));
};

}  // namespace gpuvet
