#pragma once
// Probes: one per fact family, each reading the machine only through the System door.
// Adding a probe means adding its file and one line in probes.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "facts/facts.hpp"
#include "kb/kb.hpp"
#include "system/system.hpp"

namespace gpuvet::probes {

struct Probe {
  std::string_view name;
  void (*run)(const sys::System& system, const kb::Kb& kb, Facts& facts);
};

// In dependency order: a probe may read what an earlier one put into Facts.
const std::vector<Probe>& all_probes();
Facts collect_facts(const sys::System& system, const kb::Kb& kb);
// With the knowledge base compiled into this binary.
Facts collect_facts(const sys::System& system);

void probe_os(const sys::System& system, const kb::Kb& kb, Facts& facts);
void probe_env(const sys::System& system, const kb::Kb& kb, Facts& facts);
void probe_gpu_driver(const sys::System& system, const kb::Kb& kb, Facts& facts);
// Windows numbers NVIDIA's driver 452.06 as 27.21.14.5206: NVIDIA's version is the last digit of
// the third part and the four of the fourth, with a dot before the last two. Chromium parses it
// the same way as a fallback when NVML is absent, and calls that parsing best effort
// (https://crrev.com/1241aea53e75dab24b82f20e705fd290c5d445ea, gpu_info_collector_win.cc). nullopt
// for a version not of that form.
std::optional<std::string> nvidia_driver_from_windows(std::string_view windows_version);
// The mount points of a /proc/<pid>/mountinfo (its fifth field, octal escapes undone: "\040" is a
// space), as the kernel lists them for the reading process's mount namespace.
std::vector<std::string> mount_points(std::string_view mountinfo);
// The size in bytes of the tmpfs mounted last at /dev/shm in a mountinfo, from its super options'
// size= (the kernel writes it in KiB: "size=65536k"); nullopt where that mount has none (the
// kernel's default, half the memory), is no tmpfs, or there is no such mount.
std::optional<std::int64_t> shm_size_of(std::string_view mountinfo);
// The driver's own versioned libraries, which the NVIDIA Container Toolkit mounts from the host
// one file at a time: "libcuda.so.550.54.15", "libnvidia-ml.so.550.54.15"; not "libcuda.so.1".
bool is_versioned_driver_library(std::string_view file);
// The directories distributions and the NVIDIA Container Toolkit put the driver's libraries in.
const std::vector<std::string>& driver_library_dirs();
// The mounts the driver probe asks about: a versioned driver library, or one of the driver
// library directories or a directory above one (a host directory mounted whole), not the root.
bool is_driver_mount(std::string_view point);
// A Slurm node's GPU configuration (slurm_probe.cpp): slurm.conf's line for this host and the
// gres.conf beside it.
void probe_slurm(const sys::System& system, const kb::Kb& kb, Facts& facts);
// The GPUs of a Gres= value: "gpu:a100:4,mps:100" is 4, "gpu" and "gpu:a100" are 1, items are
// summed; nullopt when no item is a gpu or a count is not a whole number.
std::optional<std::int64_t> gres_gpu_count(std::string_view gres);
struct SlurmNodeConfig {
  std::optional<std::string> node;   // the host's short name, when a NodeName line names it
  std::optional<std::int64_t> gpus;  // that line's (or NodeName=DEFAULT's) Gres= GPUs
};
SlurmNodeConfig slurm_node_config(std::string_view slurm_conf, std::string_view hostname);

// One line of journalctl's short-iso output that holds an NVIDIA driver's Xid ("2026-12-07T03:12:44
// +0000 node01 kernel: NVRM: Xid (PCI:0000:3b:00): 79, …"); none for any other line.
std::optional<XidEventFact> xid_event_of(std::string_view line);
struct GresNodeConfig {
  std::optional<std::string> autodetect;  // lower case: nvml, nvidia, off ...
  std::vector<std::string> gpu_files;     // File= of the Name=gpu lines, ranges expanded
};
// The lines of a gres.conf that apply to the host: those without NodeName=, and those whose
// NodeName= host list names it.
GresNodeConfig gres_node_config(std::string_view gres_conf, std::string_view hostname);
// What a snapshot keeps of slurm.conf (the NodeName lines' NodeName=, NodeHostname= and Gres=;
// the rest holds the accounting database's password and the cluster's layout) or of gres.conf
// (the parameters the probe reads), one line per line kept, names in lower case.
std::string slurm_parameters_read(std::string_view text, bool gres_conf);
// Where slurm.conf is looked for after $SLURM_CONF.
const std::vector<std::string>& slurm_conf_paths();
void probe_cuda_toolkits(const sys::System& system, const kb::Kb& kb, Facts& facts);
void probe_cudnn(const sys::System& system, const kb::Kb& kb, Facts& facts);
// Python environments, their packages and framework builds (python_probe.cpp); adds the CUDA and
// cuDNN copies that conda packages and NVIDIA wheels bring to cuda_toolkits and cudnn.
void probe_python_envs(const sys::System& system, const kb::Kb& kb, Facts& facts);
void probe_libraries(const sys::System& system, const kb::Kb& kb, Facts& facts);
// The host compiler nvcc runs on Linux and each toolkit's newest GCC (host_compiler_probe.cpp);
// after python_envs, whose conda and pip toolkits carry a host_config.h too.
void probe_host_compiler(const sys::System& system, const kb::Kb& kb, Facts& facts);
// The NVIDIA Container Toolkit's release (container_toolkit_probe.cpp): nvidia-ctk --version.
void probe_container_toolkit(const sys::System& system, const kb::Kb& kb, Facts& facts);
// The newest GCC a toolkit's include/crt/host_config.h lets nvcc use: "15" from "#error --
// unsupported GNU version! gcc versions later than 15 are not supported!".
std::optional<std::string> host_config_gcc_max(std::string_view header);
// The _MSC_VER range of the same header's Visual Studio check: the lowest accepted and the first
// refused ("_MSC_VER < 1920 || _MSC_VER >= 1950" is {1920, 1950}; "> 1911" refuses 1912 on).
std::optional<std::pair<int, int>> host_config_msc_range(std::string_view header);
// The names the check's message gives the accepted versions ("2019 and 2022", "2012, 2013, 2015
// and 2017").
std::optional<std::string> host_config_msvc_names(std::string_view header);
// _MSC_VER of an MSVC toolset version: 14.YY is 19YY from Visual Studio 2017's 14.10 on.
std::optional<int> msc_ver_of_toolset(std::string_view toolset);

// The integer value of `#define NAME <digits>` in a C header, if it has one.
std::optional<long> header_define(std::string_view text, std::string_view name);
// The version in a wheel's "<name>-<version>.dist-info" directory name when the distribution is
// `package` or `package_cuNN`, cut to major.minor.patch: ("nvidia_cudnn_cu13-9.19.0.56.dist-info",
// "nvidia_cudnn") -> "9.19.0".
std::optional<std::string> dist_info_version(std::string_view directory_name,
                                             std::string_view package);

// A CUDA or cuDNN library's soname as frameworks ask the loader for it: "libcudnn.so.9",
// "libcudart.so.11.0"; not a full file name ("libcudnn.so.9.19.0").
bool is_cuda_library_soname(std::string_view file);

// Parses /etc/os-release style KEY=VALUE lines (shell quoting, comments).
std::vector<std::pair<std::string, std::string>> parse_os_release(std::string_view text);

}  // namespace gpuvet::probes
