// The GPU and driver probe (Linux and WSL2): NVIDIA devices on the PCI bus, the kernel module,
// /proc/driver/nvidia, device nodes, the toolkit's stub libcuda, and what NVML and the CUDA
// driver answered in the child process. It asks the PCI bus before any driver, so "no GPU" and
// "a GPU without a working driver" stay apart.
#include <algorithm>
#include <cctype>
#include <set>

#include "core/paths.hpp"
#include "core/text.hpp"
#include "kb/queries.hpp"
#include "probes/probes.hpp"
#include "system/real_path.hpp"

namespace gpuvet::probes {

namespace {

constexpr const char* kPciDevices = "/sys/bus/pci/devices";
// PCI class codes (PCI Code and ID Assignment Specification): 0x0300 VGA-compatible display
// controller, 0x0302 3D controller (data-centre GPUs without display outputs).
constexpr std::string_view kVgaClass = "0x0300";
constexpr std::string_view kThreeDClass = "0x0302";
constexpr std::string_view kNvidiaVendor = "0x10de";
// WSL2 maps the Windows driver's libcuda here (Microsoft's CUDA on WSL user guide).
constexpr const char* kWslLibDir = "/usr/lib/wsl/lib";

std::string read_trimmed(const sys::System& system, const std::string& path) {
  const auto text = system.read_text(path);
  return text ? std::string(text::trim(*text)) : std::string();
}

void scan_pci(const sys::System& system, Facts& facts) {
  const auto devices = system.list_dir(kPciDevices);
  facts.hardware.pci_scanned = devices.has_value();
  if (!devices) return;
  for (const auto& entry : *devices) {
    const std::string dir = paths::join(kPciDevices, entry.name);
    if (text::to_lower(read_trimmed(system, dir + "/vendor")) != kNvidiaVendor) continue;
    const std::string klass = text::to_lower(read_trimmed(system, dir + "/class"));
    if (!klass.starts_with(kVgaClass) && !klass.starts_with(kThreeDClass)) continue;
    PciGpuFact gpu;
    gpu.address = entry.name;
    std::string device = read_trimmed(system, dir + "/device");
    if (text::starts_with_icase(device, "0x")) device = device.substr(2);
    for (auto& c : device)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    gpu.pci_id = "10DE:" + device;
    gpu.class_code = klass;
    if (const auto driver = system.file_info(dir + "/driver"); driver && driver->link_target) {
      const auto parts = text::split(*driver->link_target, '/');
      gpu.kernel_driver = parts.back();
    }
    facts.hardware.pci_gpus.push_back(gpu);
  }
}

// UEFI's SecureBoot variable, of the EFI global-variable GUID (UEFI specification, "Globally
// Defined Variables"). efivarfs gives its 4 attribute bytes, then its 1-byte value: 1 is on.
constexpr const char* kSecureBootVariable =
    "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";
constexpr size_t kEfiAttributeBytes = 4;

std::optional<bool> read_secure_boot(const sys::System& system) {
  const auto variable = system.read_text(kSecureBootVariable);
  if (!variable || variable->size() != kEfiAttributeBytes + 1) return std::nullopt;
  const char value = (*variable)[kEfiAttributeBytes];
  if (value != 0 && value != 1) return std::nullopt;
  return value == 1;
}

// Returns whether the kernel said anything (its module list is readable).
bool read_kernel_side(const sys::System& system, Facts& facts, DriverFacts& d) {
  const auto modules = system.read_text("/proc/modules");
  if (modules) {
    for (const auto& line : text::split(*modules, '\n')) {
      const std::string name = text::split(line, ' ')[0];
      if (name == "nvidia") d.nvidia_module_loaded = true;
      if (name == "nouveau") d.nouveau_loaded = true;
    }
  }
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 ..." or
  // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build ...".
  if (const auto version = system.read_text("/proc/driver/nvidia/version")) {
    const std::string first_line = text::split(*version, '\n')[0];
    const size_t module = first_line.find("Kernel Module");
    if (module != std::string::npos) {
      for (const auto& word : text::split(first_line.substr(module), ' ')) {
        const auto parts = text::split(word, '.');
        if (parts.size() >= 2 && std::all_of(parts.begin(), parts.end(), text::is_digits)) {
          d.kernel_module_version = word;
          break;
        }
      }
    }
  }
  d.secure_boot = read_secure_boot(system);
  if (const auto dev = system.list_dir("/dev")) {
    for (const auto& entry : *dev) {
      if (entry.name == "dxg") facts.hardware.device_nodes.push_back("/dev/dxg");
      if (!entry.name.starts_with("nvidia")) continue;
      const std::string node = "/dev/" + entry.name;
      facts.hardware.device_nodes.push_back(node);
      const auto info = system.file_info(node);
      if (info && info->read_write == false) facts.hardware.denied_nodes.push_back(node);
    }
  }
  return modules.ok() || d.kernel_module_version.has_value();
}

constexpr const char* kDkmsTree = "/var/lib/dkms";
constexpr const char* kAkmodsCache = "/var/cache/akmods/nvidia";

// Whether a DKMS module builds NVIDIA's nvidia.ko: its dkms.conf says
// BUILT_MODULE_NAME[0]="nvidia". Without a readable dkms.conf the module's name decides (nvidia,
// nvidia-current, nvidia-open, nvidia-legacy-390xx ...), except NVIDIA's modules that are not the
// driver.
bool builds_nvidia_module(const sys::System& system, const std::string& version_dir,
                          const std::string& module) {
  if (const auto conf = system.read_text(version_dir + "/source/dkms.conf")) {
    for (const auto& raw : text::split(*conf, '\n')) {
      const std::string line(text::trim(raw));
      if (!line.starts_with("BUILT_MODULE_NAME[")) continue;
      const size_t equals = line.find('=');
      if (equals == std::string::npos) continue;
      std::string value(text::trim(line.substr(equals + 1)));
      value.erase(std::remove(value.begin(), value.end(), '"'), value.end());
      value.erase(std::remove(value.begin(), value.end(), '\''), value.end());
      if (value == "nvidia") return true;
    }
    return false;
  }
  return (module == "nvidia" || module.starts_with("nvidia-")) && module != "nvidia-fs" &&
         module != "nvidia-peer-memory" && module != "nvidia-peermem";
}

// The kernels DKMS has built a module for: <version>/<kernel>/<arch>/module/ holds it.
std::vector<std::string> dkms_built_kernels(const sys::System& system,
                                            const std::string& version_dir) {
  std::vector<std::string> kernels;
  const auto entries = system.list_dir(version_dir);
  if (!entries) return kernels;
  for (const auto& entry : *entries) {
    if (entry.name == "source" || entry.name == "build") continue;
    const auto arches = system.list_dir(paths::join(version_dir, entry.name));
    if (!arches) continue;
    for (const auto& arch : *arches) {
      const auto module =
          system.list_dir(paths::join(paths::join(version_dir, entry.name), arch.name) + "/module");
      if (module && !module->empty()) {
        kernels.push_back(entry.name);
        break;
      }
    }
  }
  std::sort(kernels.begin(), kernels.end());
  return kernels;
}

// "DKMS make.log for nvidia-535.183.01 for kernel 6.8.0-45-generic (x86_64)": the kernel.
std::optional<std::string> make_log_kernel(std::string_view head) {
  const std::string_view first_line = head.substr(0, head.find('\n'));
  constexpr std::string_view kMarker = " for kernel ";
  const size_t at = first_line.find(kMarker);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view rest = first_line.substr(at + kMarker.size());
  const std::string_view kernel = rest.substr(0, rest.find(' '));
  if (kernel.empty()) return std::nullopt;
  return std::string(kernel);
}

void read_dkms(const sys::System& system, DriverFacts& d) {
  const auto modules = system.list_dir(kDkmsTree);
  if (!modules) return;
  for (const auto& module : *modules) {
    if (!module.name.starts_with("nvidia")) continue;
    const std::string module_dir = paths::join(kDkmsTree, module.name);
    const auto versions = system.list_dir(module_dir);
    if (!versions) continue;
    for (const auto& version : *versions) {
      // Versions start with a digit; DKMS also links kernel-<kernel>-<arch> here.
      if (version.name.empty() || !std::isdigit(static_cast<unsigned char>(version.name[0]))) {
        continue;
      }
      const std::string version_dir = paths::join(module_dir, version.name);
      if (!builds_nvidia_module(system, version_dir, module.name)) continue;
      ModuleBuildFact build{"dkms",       module.name,
                            version.name, dkms_built_kernels(system, version_dir),
                            std::nullopt, std::nullopt};
      const std::string log = version_dir + "/build/make.log";
      if (const auto head = system.read_head(log, 512)) {
        build.failed_log = log;
        build.failed_kernel = make_log_kernel(*head);
      }
      d.module_builds.push_back(std::move(build));
    }
  }
}

// akmods (Fedora, RHEL) names a failed build <version>-for-<kernel>.failed.log.
void read_akmods(const sys::System& system, const Facts& facts, DriverFacts& d) {
  if (!facts.os.kernel) return;
  const auto entries = system.list_dir(kAkmodsCache);
  if (!entries) return;
  const std::string suffix = "-for-" + *facts.os.kernel + ".failed.log";
  for (const auto& entry : *entries) {
    if (!entry.name.ends_with(suffix) || entry.name.size() == suffix.size()) continue;
    d.module_builds.push_back({"akmods",
                               "nvidia",
                               entry.name.substr(0, entry.name.size() - suffix.size()),
                               {},
                               paths::join(kAkmodsCache, entry.name),
                               *facts.os.kernel});
  }
}

// The Xids the driver logged since boot, newest first, from the kernel's messages in the journal
// (journalctl filters them: a boot's whole kernel log would not fit the output gpuvet keeps).
// Without systemd's journal, or where this user may not read the kernel's messages, nothing.
void read_xid_events(const sys::System& system, DriverFacts& d) {
  // --no-hostname: the host's name is not the GPU's fault, and snapshots keep what was printed.
  const std::vector<std::string> args = {
      "-k",     "-b",        "-q", "--no-pager", "--no-hostname",
      "-o",     "short-iso", "-r", "-n",         std::to_string(kMaxXidEvents),
      "--grep", "NVRM: Xid"};
  for (const char* journalctl : {"/usr/bin/journalctl", "/bin/journalctl"}) {
    const auto run = system.run_program(journalctl, args);
    if (!run) continue;
    if (run->exit_code != 0) return;
    for (const auto& line : text::split(run->output, '\n')) {
      if (d.xid_events.size() >= kMaxXidEvents) break;
      if (auto event = xid_event_of(line)) d.xid_events.push_back(std::move(*event));
    }
    return;
  }
}

// nvidia-persistenced writes its pid to /var/run/nvidia-persistenced (its man page); the kernel
// keeps a process name to 15 characters ("nvidia-persiste").
void read_persistenced(const sys::System& system, const Facts& facts, DriverFacts& d) {
  if (facts.os.container) return;
  for (const char* dir : {"/run/nvidia-persistenced", "/var/run/nvidia-persistenced"}) {
    const auto pid = system.read_text(std::string(dir) + "/nvidia-persistenced.pid");
    if (!pid) continue;
    const std::string number(text::trim(*pid));
    bool running = false;
    if (!number.empty() && text::is_digits(number)) {
      const auto comm = system.read_text("/proc/" + number + "/comm");
      running = comm && text::trim(*comm).starts_with("nvidia-persiste");
    }
    d.persistenced_running = running;
    return;
  }
  d.persistenced_running = false;
}

// Toolkit stubs: libcuda.so for linking only, whose cuInit answers CUDA_ERROR_STUB_LIBRARY.
void find_stubs(const sys::System& system, const Facts& facts, DriverFacts& d) {
  std::vector<std::string> roots;
  if (const auto local = system.list_dir("/usr/local")) {
    for (const auto& entry : *local) {
      if (entry.name == "cuda" || entry.name.starts_with("cuda-")) {
        roots.push_back("/usr/local/" + entry.name);
      }
    }
  }
  for (const auto& toolkit : facts.cuda_toolkits)
    roots.push_back(toolkit.root);
  for (const auto& root : roots) {
    for (const char* sub : {"/lib64/stubs/libcuda.so", "/lib/stubs/libcuda.so",
                            "/targets/x86_64-linux/lib/stubs/libcuda.so",
                            "/targets/sbsa-linux/lib/stubs/libcuda.so"}) {
      const auto info = system.file_info(root + sub);
      if (!info || info->kind != sys::FileKind::regular) continue;
      // One file reached through several links (cuda -> cuda-13.0, lib64 -> lib) counts once.
      const std::string real = sys::real_path(system, root + sub);
      if (std::find(d.stub_libraries.begin(), d.stub_libraries.end(), real) ==
          d.stub_libraries.end()) {
        d.stub_libraries.push_back(real);
      }
    }
  }
}

void read_native(const sys::System& system, Facts& facts, DriverFacts& d) {
  if (const auto driver = system.driver()) {
    d.installed = driver->installed;
    d.version = driver->version;
    d.cuda_driver_version = driver->cuda_driver_version;
    d.error = driver->error;
  }
  // The CUDA driver's name on the machine's platform (a snapshot's, not this build's).
  const char* cuda_driver = facts.os.family == "windows" ? "nvcuda.dll" : "libcuda.so.1";
  if (const auto cuda = system.load(cuda_driver)) {
    d.libcuda = cuda->path;
    if (facts.os.family == "linux" && cuda->path)
      d.libcuda_file = sys::real_path(system, *cuda->path);
    d.cuinit_code = cuda->init_code;
  }
  if (const auto gpus = system.gpus()) facts.gpus = *gpus;
  // Without a working driver, confirm a toolkit stub by loading it in the child: its cuInit
  // must answer "stub library".
  if (!d.stub_libraries.empty() && !d.installed.value_or(false)) {
    if (const auto stub = system.load(d.stub_libraries.front()))
      d.stub_cuinit_code = stub->init_code;
  }
}

void read_wsl(const sys::System& system, const Facts& facts, DriverFacts& d) {
  if (!facts.os.wsl) return;
  d.wsl_libcuda = system.exists(std::string(kWslLibDir) + "/libcuda.so.1") ||
                  system.exists(std::string(kWslLibDir) + "/libcuda.so");
  // A Linux driver installed inside WSL2 puts its own libcuda where the loader finds it first.
  if (const auto cached = system.ld_cache_lookup("libcuda.so.1"); cached && !cached->empty()) {
    d.ld_cache_libcuda = cached->front();
  }
}

// Where GNU ld looks for -l<name> with no -L of its own (`ld --verbose`, SEARCH_DIR on Debian).
std::vector<std::string> linker_default_dirs(const std::optional<std::string>& arch) {
  std::vector<std::string> dirs;
  if (arch) {
    const std::string multiarch = *arch + "-linux-gnu";
    for (const char* root : {"/usr/local/lib/", "/lib/", "/usr/lib/"})
      dirs.push_back(root + multiarch);
  }
  for (const char* dir :
       {"/usr/local/lib64", "/lib64", "/usr/lib64", "/usr/local/lib", "/lib", "/usr/lib"})
    dirs.emplace_back(dir);
  return dirs;
}

void add_unique(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

// The directories Triton hands the linker, as its libcuda_dirs() finds them
// (triton third_party/nvidia/backend/driver.py).
void find_triton_libcuda_dirs(const sys::System& system, LibcudaLinkFact& link) {
  if (const auto own = system.env("TRITON_LIBCUDA_PATH"); own && !own->empty()) {
    link.dirs = {*own};
    link.dirs_from = "TRITON_LIBCUDA_PATH";
    return;
  }
  for (const auto& path :
       system.ld_cache_lookup("libcuda.so.1").value_or(std::vector<std::string>{}))
    add_unique(link.dirs, paths::parent(path));
  if (!link.dirs.empty()) {
    link.dirs_from = "ld_cache";
    return;
  }
  for (const auto& dir : text::split(system.env("LD_LIBRARY_PATH").value_or(""), ':')) {
    if (!dir.empty() && system.exists(paths::join(dir, "libcuda.so.1"))) add_unique(link.dirs, dir);
  }
  if (!link.dirs.empty()) link.dirs_from = "LD_LIBRARY_PATH";
}

// Whether ld would take the file for -lcuda: it skips a library of another machine (a 32-bit
// libcuda.so in /usr/lib, "skipping incompatible"). Unknown machines are taken.
bool same_machine(const sys::System& system, const std::string& candidate,
                  const std::string& loaded) {
  const auto a = system.elf_info(candidate);
  const auto b = system.elf_info(loaded);
  if (!a || !b || !a->machine || !b->machine) return true;
  return *a->machine == *b->machine && a->bits == b->bits;
}

void read_libcuda_link(const sys::System& system, const Facts& facts, DriverFacts& d) {
  if (facts.os.wsl || !d.libcuda) return;
  // A loader cache that lists no C library was not read (a snapshot of an older gpuvet): what it
  // would list of libcuda stays unknown.
  const auto libc = system.ld_cache_lookup("libc.so.6");
  if (!libc || libc->empty()) return;
  LibcudaLinkFact link;
  find_triton_libcuda_dirs(system, link);
  std::vector<std::string> searched = link.dirs;
  for (const auto& dir : text::split(system.env("LIBRARY_PATH").value_or(""), ':'))
    if (!dir.empty()) add_unique(searched, dir);
  for (const auto& dir : linker_default_dirs(facts.os.arch))
    add_unique(searched, dir);
  for (const auto& dir : searched) {
    const std::string candidate = paths::join(dir, "libcuda.so");
    if (system.exists(candidate) && same_machine(system, candidate, *d.libcuda))
      add_unique(link.unversioned, candidate);
  }
  d.libcuda_link = std::move(link);
}

// The kernel writes a space in a mount point as "\\040" (and tab, newline, backslash likewise).
std::string unescape_octal(const std::string& raw) {
  const auto is_octal = [](char c) { return c >= '0' && c <= '7'; };
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\\' && i + 3 < raw.size() && is_octal(raw[i + 1]) && is_octal(raw[i + 2]) &&
        is_octal(raw[i + 3])) {
      out += static_cast<char>(std::stoi(raw.substr(i + 1, 3), nullptr, 8));
      i += 3;
    } else {
      out += raw[i];
    }
  }
  return out;
}

// Whether the path, or a directory above it other than the root, is a mount point: a file of a
// directory mounted from the host is the host's.
bool is_mounted(const std::string& path, const std::set<std::string>& mounts) {
  for (std::string at = path; at.size() > 1; at = paths::parent(at)) {
    if (mounts.contains(at)) return true;
  }
  return false;
}

// Inside a container, a versioned driver library that is no mount came with the image: the
// toolkit mounts each of the host's driver libraries as a file of its own.
void find_image_libraries(const sys::System& system, const Facts& facts, DriverFacts& d) {
  if (!facts.os.container) return;
  const auto mountinfo = system.read_text("/proc/self/mountinfo");
  if (!mountinfo) return;
  std::set<std::string> mounts;
  for (auto& point : mount_points(*mountinfo)) {
    if (is_driver_mount(point)) mounts.insert(std::move(point));
  }
  std::set<std::string> seen;
  for (const auto& dir : driver_library_dirs()) {
    const std::string real_dir = sys::real_path(system, dir);
    if (!seen.insert(real_dir).second) continue;
    const auto entries = system.list_dir(real_dir);
    if (!entries) continue;
    for (const auto& entry : *entries) {
      if (entry.is_link || entry.kind != sys::FileKind::regular ||
          !is_versioned_driver_library(entry.name)) {
        continue;
      }
      const std::string path = paths::join(real_dir, entry.name);
      if (!is_mounted(path, mounts)) d.image_libraries.push_back(path);
    }
  }
}

// "PCI\\VEN_10DE&DEV_1C03&SUBSYS_..." -> "10DE:1C03".
std::optional<std::string> pci_id_of(const std::string& pnp_id) {
  std::string upper = pnp_id;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  const size_t ven = upper.find("VEN_");
  const size_t dev = upper.find("DEV_");
  if (ven == std::string::npos || dev == std::string::npos || ven + 8 > upper.size() ||
      dev + 8 > upper.size()) {
    return std::nullopt;
  }
  return upper.substr(ven + 4, 4) + ":" + upper.substr(dev + 4, 4);
}

// SetupAPI's display adapters: an NVIDIA GPU under Windows' fallback driver is a GPU without a
// driver; an NVIDIA driver there gives its version when the native query did not answer.
void read_display_adapters(const sys::System& system, Facts& facts) {
  const auto adapters = system.display_adapters();
  if (!adapters) return;
  facts.hardware.pci_scanned = true;
  for (const auto& a : *adapters) {
    DisplayAdapterFact f;
    f.name = a.name;
    f.provider = a.provider;
    f.driver_version = a.driver_version;
    if (a.pnp_id) f.pci_id = pci_id_of(*a.pnp_id);
    const std::string name = text::to_lower(a.name.value_or(""));
    const bool nvidia_hardware =
        (f.pci_id && f.pci_id->starts_with("10DE:")) || name.find("nvidia") != std::string::npos;
    f.basic = name.find("basic display") != std::string::npos;
    if (text::to_lower(a.provider.value_or("")) == "nvidia" && a.driver_version) {
      f.nvidia_driver = nvidia_driver_from_windows(*a.driver_version);
    }
    if (nvidia_hardware) {
      PciGpuFact gpu;
      gpu.address = a.name.value_or("display adapter");
      gpu.pci_id = f.pci_id.value_or("10DE:????");
      gpu.class_code = "0x030000";
      gpu.kernel_driver =
          f.basic ? std::optional<std::string>("Microsoft Basic Display Adapter") : a.provider;
      facts.hardware.pci_gpus.push_back(std::move(gpu));
    }
    facts.hardware.display_adapters.push_back(std::move(f));
  }
}

// A driver too old to report compute capabilities (nvidia-smi before compute_cap) still names
// its GPUs: their capability is the table's for that PCI id, else for that name.
void complete_capabilities(const kb::Kb& kb, Facts& facts) {
  for (auto& gpu : facts.gpus) {
    if (gpu.compute_capability) continue;
    for (const auto& key : {gpu.pci_id, gpu.name}) {
      if (!key) continue;
      const auto match = kb::find_gpu(kb, *key);
      if (match && !match->compute_capability.empty()) {
        gpu.compute_capability = match->compute_capability;
        break;
      }
    }
  }
}

// Names each GPU found on the bus from its PCI device id, before (and without) any driver: "a
// GeForce RTX 3060 without a working driver" says more than "NVIDIA device 10DE:2504".
void identify_pci_gpus(const kb::Kb& kb, Facts& facts) {
  for (auto& gpu : facts.hardware.pci_gpus) {
    if (gpu.pci_id.find('?') != std::string::npos) continue;
    const auto match = kb::find_gpu(kb, gpu.pci_id);
    if (!match || match->matched_by != "pci_id" || match->rows.empty()) continue;
    // The driver's own name for the id comes first in the table: it is what nvidia-smi prints.
    gpu.name = match->rows.front().get("name");
    if (!match->compute_capability.empty()) gpu.compute_capability = match->compute_capability;
  }
}

}  // namespace

std::vector<std::string> mount_points(std::string_view mountinfo) {
  std::vector<std::string> points;
  for (const auto& line : text::split(mountinfo, '\n')) {
    const auto fields = text::split(line, ' ');
    if (fields.size() < 5 || fields[4].empty()) continue;
    points.push_back(unescape_octal(fields[4]));
  }
  return points;
}

const std::vector<std::string>& driver_library_dirs() {
  // Not /usr/local/cuda/compat: a CUDA forward-compatibility libcuda there belongs in the image.
  static const std::vector<std::string> dirs = {"/usr/lib/x86_64-linux-gnu",
                                                "/usr/lib/aarch64-linux-gnu",
                                                "/usr/lib64",
                                                "/usr/lib",
                                                "/lib/x86_64-linux-gnu",
                                                "/lib/aarch64-linux-gnu",
                                                "/lib64",
                                                "/usr/local/nvidia/lib64",
                                                "/usr/local/nvidia/lib"};
  return dirs;
}

bool is_driver_mount(std::string_view point) {
  if (is_versioned_driver_library(point.substr(point.rfind('/') + 1))) return true;
  return point.size() > 1 &&
         std::any_of(driver_library_dirs().begin(), driver_library_dirs().end(),
                     [&](const std::string& dir) {
                       return dir == point || (dir.starts_with(point) && dir[point.size()] == '/');
                     });
}

bool is_versioned_driver_library(std::string_view file) {
  for (std::string_view stem : {"libcuda.so.", "libnvidia-ml.so."}) {
    if (!file.starts_with(stem)) continue;
    const auto parts = text::split(file.substr(stem.size()), '.');
    return parts.size() >= 2 && std::all_of(parts.begin(), parts.end(), [](const std::string& p) {
             return !p.empty() && text::is_digits(p);
           });
  }
  return false;
}

std::optional<std::string> nvidia_driver_from_windows(std::string_view windows_version) {
  const auto parts = text::split(windows_version, '.');
  if (parts.size() != 4 || !std::all_of(parts.begin(), parts.end(), [](const std::string& p) {
        return !p.empty() && text::is_digits(p);
      })) {
    return std::nullopt;
  }
  if (parts[3].size() > 4) return std::nullopt;
  const std::string digits =
      parts[2].substr(parts[2].size() - 1) + std::string(4 - parts[3].size(), '0') + parts[3];
  return std::to_string(std::stoi(digits.substr(0, 3))) + "." + digits.substr(3);
}

// "2026-12-07T03:12:44+0000 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen
// off the bus.": journalctl's short-iso line of one Xid (with or without the host's name).
std::optional<XidEventFact> xid_event_of(std::string_view line) {
  constexpr std::string_view kMarker = "NVRM: Xid (";
  const size_t marker = line.find(kMarker);
  const size_t space = line.find(' ');
  if (marker == std::string_view::npos || space == std::string_view::npos || space > marker) {
    return std::nullopt;
  }
  const size_t pci_at = marker + kMarker.size();
  const size_t close = line.find("):", pci_at);
  if (close == std::string_view::npos || close - pci_at > kMaxXidPci) return std::nullopt;
  size_t digits = close + 2;
  if (digits < line.size() && line[digits] == ' ') ++digits;
  size_t end = digits;
  while (end < line.size() && end - digits < 4 &&
         std::isdigit(static_cast<unsigned char>(line[end]))) {
    ++end;
  }
  if (end == digits) return std::nullopt;
  XidEventFact event;
  event.time = std::string(line.substr(0, space));
  event.pci = std::string(line.substr(pci_at, close - pci_at));
  event.xid = std::stoi(std::string(line.substr(digits, end - digits)));
  std::string_view rest = line.substr(end);
  while (!rest.empty() && (rest.front() == ',' || rest.front() == ' '))
    rest.remove_prefix(1);
  event.text = std::string(rest.substr(0, kMaxXidText));
  return event;
}

void probe_gpu_driver(const sys::System& system, const kb::Kb& kb, Facts& facts) {
  if (facts.os.family != "linux") {
    // Windows answers come through the same native query; its own probe adds the rest.
    DriverFacts d;
    read_native(system, facts, d);
    read_display_adapters(system, facts);
    identify_pci_gpus(kb, facts);
    complete_capabilities(kb, facts);
    if (!d.installed && !d.version) {
      for (const auto& a : facts.hardware.display_adapters) {
        if (a.nvidia_driver && !a.basic) {
          d.version = a.nvidia_driver;  // the display driver is there; CUDA was not asked
          break;
        }
      }
    }
    if (d.installed || d.error || d.version) facts.driver = d;
    return;
  }
  scan_pci(system, facts);
  identify_pci_gpus(kb, facts);
  DriverFacts d;
  const bool kernel_known = read_kernel_side(system, facts, d);
  read_dkms(system, d);
  read_persistenced(system, facts, d);
  read_akmods(system, facts, d);
  read_xid_events(system, d);
  find_stubs(system, facts, d);
  read_native(system, facts, d);
  complete_capabilities(kb, facts);
  read_wsl(system, facts, d);
  read_libcuda_link(system, facts, d);
  find_image_libraries(system, facts, d);
  // Nothing known stays null rather than an object of unknowns.
  if (kernel_known || d.installed || d.libcuda || !d.stub_libraries.empty() || d.wsl_libcuda ||
      !d.image_libraries.empty() || !d.module_builds.empty() || !d.xid_events.empty()) {
    facts.driver = d;
  }
  facts.hardware.nvidia_visible_devices = system.env("NVIDIA_VISIBLE_DEVICES");
}

}  // namespace gpuvet::probes
