#pragma once
// Facts: everything the probes learnt about a machine, as one plain value. Unknown is nullopt
// (printed as null), never a guess.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace gpuvet {

struct OsFacts {
  std::string family;  // "linux" | "windows"
  std::optional<std::string> name;
  std::optional<std::string> version;
  std::optional<std::string> release;  // codename or Windows release (e.g. "bookworm", "22H2")
  std::optional<std::string> kernel;
  std::optional<std::string> arch;
  bool wsl = false;
  std::optional<std::string> container;  // "docker", "podman", "kubernetes", "lxc" ...
  bool remote_session = false;
  std::optional<std::string> hostname;
  // Windows: HKLM\SYSTEM\CurrentControlSet\Control\FileSystem LongPathsEnabled = 1; null when
  // the key was not read.
  std::optional<bool> long_paths_enabled;
  // Windows memory integrity (HVCI); null when the machine never configured it.
  std::optional<bool> memory_integrity;
  // Windows: seconds a WDDM GPU may take before Windows resets it (TDR); a kernel on a GPU that
  // drives a display must finish within it.
  std::optional<std::int64_t> tdr_delay_s;
  // Linux: the size of the tmpfs at /dev/shm, from its mount's size= option (Docker's default is
  // 64 MB); null where the mount sets none (the kernel's default, half the memory) or is no tmpfs.
  std::optional<std::int64_t> shm_bytes;
};

struct EnvFacts {
  // The GPU-, path- and framework-related variables (redact::is_kept), values scrubbed.
  std::map<std::string, std::string> variables;
  std::vector<std::string> path;             // PATH split in search order
  std::vector<std::string> ld_library_path;  // LD_LIBRARY_PATH split in search order
  // Windows: the Path a new terminal gets, the machine's then the user's from the registry
  // (%VAR% expanded); the folders of it this process's PATH lacks, because this terminal started
  // before they were added ("restart the terminal").
  std::vector<std::string> saved_path;
  std::vector<std::string> saved_path_only;
};

// What DKMS or akmods record of building the NVIDIA kernel module (Linux).
struct ModuleBuildFact {
  std::string tool;     // dkms | akmods
  std::string module;   // DKMS's module name (nvidia, nvidia-current ...); akmods': nvidia
  std::string version;  // the driver version it builds
  std::vector<std::string> kernels;  // the kernels DKMS has a built module for
  // A failed build's log: DKMS keeps build/make.log after a failure (a success cleans the build
  // area away); akmods writes <version>-for-<kernel>.failed.log, recorded for the running kernel.
  std::optional<std::string> failed_log;
  // The kernel that failed build was for, as DKMS's make.log heads it ("DKMS make.log for
  // nvidia-535.183.01 for kernel 6.8.0-45-generic (x86_64)"); akmods' log is named by it.
  std::optional<std::string> failed_kernel;
};

// What a program that links against the CUDA driver at run time finds on Linux. Triton's
// launcher (torch.compile, Triton kernels) runs the C compiler with -lcuda and -L the directories
// its libcuda_dirs() names: TRITON_LIBCUDA_PATH's; else those of libcuda.so.1 in the loader
// cache; else LD_LIBRARY_PATH's that hold libcuda.so.1 (none: it stops, "libcuda.so cannot
// found!"). -lcuda then needs the unversioned libcuda.so there, in LIBRARY_PATH or in the
// linker's own directories.
struct LibcudaLinkFact {
  std::vector<std::string> dirs;
  std::string dirs_from;  // TRITON_LIBCUDA_PATH | ld_cache | LD_LIBRARY_PATH; empty: none found
  std::vector<std::string> unversioned;  // the libcuda.so files found where the linker looks
};

// An Xid the NVIDIA kernel driver logged since boot ("NVRM: Xid (PCI:0000:3b:00): 79, …"), as
// the kernel's log holds it: data/nvidia_xid_errors.csv says what each code means.
inline constexpr size_t kMaxXidEvents = 64;
inline constexpr size_t kMaxXidText = 200;
inline constexpr size_t kMaxXidPci = 40;
struct XidEventFact {
  std::string time;  // as journalctl prints it (short-iso)
  std::string pci;   // the GPU's bus address as the driver wrote it ("PCI:0000:3b:00")
  int xid = 0;
  std::string text;  // the driver's words after the code, up to kMaxXidText bytes
};

struct DriverFacts {
  std::optional<bool> installed;  // null: not asked (e.g. a snapshot without native answers)
  std::optional<std::string> version;
  std::optional<std::string> cuda_driver_version;
  std::optional<std::string> error;
  // The kernel side (Linux): /proc/modules and /proc/driver/nvidia/version.
  bool nvidia_module_loaded = false;
  bool nouveau_loaded = false;
  std::optional<std::string> kernel_module_version;
  // UEFI Secure Boot (its SecureBoot variable): with it on, the kernel loads only modules signed
  // with a key the firmware trusts. Null: no UEFI variables to read (BIOS, most containers).
  std::optional<bool> secure_boot;
  // The user side: which libcuda.so.1 the loader chose and what its cuInit answered (CUresult).
  std::optional<std::string> libcuda;
  std::optional<std::string> libcuda_file;  // the file it leads to, links followed
  std::optional<int> cuinit_code;
  // The CUDA toolkits' stub libcuda.so files, and what the first one's cuInit answered.
  std::vector<std::string> stub_libraries;
  std::optional<int> stub_cuinit_code;
  // WSL2: the Windows driver's libcuda in /usr/lib/wsl/lib, and what the loader cache lists first.
  bool wsl_libcuda = false;
  std::optional<std::string> ld_cache_libcuda;
  // Linux outside WSL, where libcuda.so.1 loads and the loader cache was read.
  std::optional<LibcudaLinkFact> libcuda_link;
  // In a container: the driver's versioned libraries in the loader's directories that are not
  // mounted (/proc/self/mountinfo), so the image itself carries them; the NVIDIA Container
  // Toolkit mounts the host's driver libraries one file at a time.
  std::vector<std::string> image_libraries;
  // Linux: whether nvidia-persistenced runs (its pid file names a live process of that name).
  // Null where it cannot be told: in a container, which sees the host's GPUs but not its daemons.
  std::optional<bool> persistenced_running;
  // DKMS's and akmods' builds of the kernel module (none: neither has an NVIDIA module).
  std::vector<ModuleBuildFact> module_builds;
  // The driver's Xid lines in the kernel's log of this boot (journalctl -k), newest first, up to
  // kMaxXidEvents; empty where none was logged or the log could not be read (no journal, a
  // container, a user who may not read it): no fault is claimed from their absence.
  std::vector<XidEventFact> xid_events;
};

// An NVIDIA display or 3D controller on the PCI bus, found before asking any driver.
struct PciGpuFact {
  std::string address;                       // "0000:01:00.0"
  std::string pci_id;                        // "10DE:2504"
  std::string class_code;                    // "0x030000"
  std::optional<std::string> kernel_driver;  // the driver bound to it: nvidia, nouveau, vfio-pci
  // What its PCI device id names in data/gpu_ids.csv, so that a GPU no driver answers for is
  // still named; null when the id is not in the table (or its chip's capability is unknown).
  std::optional<std::string> name;
  std::optional<std::string> compute_capability;
};

// A Windows display adapter (SetupAPI): which driver Windows runs the GPU with.
struct DisplayAdapterFact {
  std::optional<std::string> name;
  std::optional<std::string> provider;        // "NVIDIA", "Microsoft" ...
  std::optional<std::string> driver_version;  // Windows' numbering: 27.21.14.5206
  std::optional<std::string> nvidia_driver;   // the same as NVIDIA numbers it: 452.06
  std::optional<std::string> pci_id;          // "10DE:1C03", from the hardware id
  bool basic = false;  // Microsoft Basic Display Adapter: Windows' fallback, no CUDA
};

struct HardwareFacts {
  // /sys/bus/pci/devices could be listed; on Windows, SetupAPI listed the display adapters.
  bool pci_scanned = false;
  std::vector<PciGpuFact> pci_gpus;
  std::vector<DisplayAdapterFact> display_adapters;  // Windows
  std::vector<std::string> device_nodes;             // /dev/nvidia*, /dev/dxg
  std::vector<std::string> denied_nodes;             // of those, the ones this process may not open
  std::optional<std::string> nvidia_visible_devices;  // the NVIDIA container runtime's variable
};

struct GpuFact {
  int index = 0;
  std::optional<std::string> name;
  std::optional<std::string> uuid;
  std::optional<std::string> pci_id;
  std::optional<std::string> compute_capability;
  std::optional<std::int64_t> memory_mib;
  std::optional<std::string> driver_model;
  std::optional<std::string> compute_mode;  // Default | Exclusive_Process | Prohibited ...
  // NVML's nvmlEnableState_t of the two, as the driver answers; null where it says "not
  // supported" (ECC on a GeForce, persistence on Windows) or was not asked.
  std::optional<bool> persistence_mode;
  std::optional<bool> ecc;       // the current ECC mode
  std::optional<bool> mig_mode;  // MIG enabled now (NVML's current mode)
  // Uncorrectable ECC errors since the driver loaded (NVML's volatile count), and the row
  // remapper's state (Ampere and newer data-centre GPUs): rows waiting for a GPU reset, or a
  // remapping that failed. Null where NVML says "not supported".
  std::optional<std::int64_t> ecc_uncorrected;
  std::optional<bool> row_remap_pending;
  std::optional<bool> row_remap_failure;
  // The CUDA driver's CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: whether cudaMallocAsync and
  // its memory pools work on this device (not on some virtual GPUs and older drivers); null
  // when CUDA was not asked or the device was not matched by UUID.
  std::optional<bool> memory_pools;
  bool operator==(const GpuFact&) const = default;
};

struct CudaToolkitFact {
  std::optional<std::string> version;
  std::optional<std::string>
      version_source;    // version.json | version.txt | dist-info | nvcc | cuda.h
  std::string root;      // the real directory, links resolved
  bool on_path = false;  // its bin directory is on PATH
  // How it was found: CUDA_HOME | CUDA_PATH | CUDA_ROOT | registry | path | default-location |
  // pip | conda.
  std::string source;
  std::vector<std::string> libraries;  // of cudart, cublas, ... nvJitLink: those with a lib*.so*
  bool libdevice = false;              // nvvm/libdevice/libdevice.10.bc
  bool ptxas = false;                  // bin/ptxas
  std::optional<std::string> ptxas_version;  // what `ptxas --version` says
  bool compiles = false;                     // its nvcc is the first on PATH: the one a shell runs
  bool loads = false;  // its libcudart is the one the dynamic loader opens by soname
  // The newest GCC its nvcc takes as host compiler, from include/crt/host_config.h's
  // "gcc versions later than 12 are not supported": "12" (CUDA 8-era headers may say "5.3").
  std::optional<std::string> host_gcc_max;
  // Windows: the Visual Studio compilers its nvcc accepts, from the same header's "#if _MSC_VER <
  // 1920 || _MSC_VER >= 1950": the lowest _MSC_VER accepted and the first refused, and the
  // versions its message names ("2019 and 2022").
  std::optional<int> host_msc_min;
  std::optional<int> host_msc_below;
  std::optional<std::string> host_msvc_names;
};

struct CudnnFact {
  std::optional<std::string> version;
  std::string location;  // the directory of the library (of the header when there is none)
  std::string source;    // where version came from: header | library | dist-info | pip | conda
  std::optional<std::string> header_version;   // cudnn_version.h (cudnn.h up to 7.x)
  std::optional<std::string> library_version;  // libcudnn.so.X.Y.Z, or only X from libcudnn.so.X
  std::optional<std::string> loaded_version;   // what cudnnGetVersion() answered when loaded
  // Whether the header and the library (loaded, else file name) say the same version, in the
  // parts both give; null when one of them is unknown.
  std::optional<bool> header_library_agree;
  std::vector<std::string> libraries;  // the split libraries beside it: cudnn_ops, cudnn_cnn ...
};

// What the dynamic loader would open for a soname, and the copies that file shadows.
struct LibraryCopy {
  std::string path;
  std::optional<std::string> version;
};
struct LibraryFact {
  std::string name;                     // "libcudnn.so.9"
  std::optional<std::string> resolved;  // the file, links followed; null when nothing loads
  std::optional<std::string> version;   // from the file name at the end of the link chain
  std::vector<LibraryCopy> shadowed;
  // Windows: where a new terminal would load it from, when that is in a folder only the saved
  // Path has.
  std::optional<std::string> new_terminal;
};

// The GPU code one of a build's own libraries carries, read from the file's CUDA fat binaries
// (system/gpu_code_reader.hpp): what the build really contains, where build_info and the tables
// only say what it should.
struct GpuCodeFact {
  std::string file;
  std::vector<std::string> sass;     // sm_75, sm_90a ...: cubins the driver loads as they are
  std::vector<std::string> ptx;      // compute_90 ...: PTX the driver JIT-compiles for newer GPUs
  std::vector<std::string> lto;      // lto_86 ...: LTO-IR
  std::optional<std::string> error;  // the file is there but its fat binaries could not be read
};

struct FrameworkFact {
  std::string name;     // family: tensorflow, torch, jax, cupy, paddle
  std::string package;  // the distribution: tensorflow-gpu, jax-cuda12-plugin ...
  std::optional<std::string> version;
  std::optional<bool> gpu_build;  // built with CUDA; a ROCm build is not
  std::optional<std::string> cuda;
  std::optional<std::string> cudnn;
  std::optional<std::string> rocm;                // the HIP/ROCm version of a ROCm build
  std::vector<std::string> compute_capabilities;  // as the build lists them: sm_70, compute_80
  std::vector<std::string> dll_names;  // Windows DLLs the build names (msvcp140_1.dll ...)
  std::string installer;               // pip | conda
  std::string location;  // the site-packages directory (conda-meta for a conda-only record)
  // The file that declared the build: tensorflow/python/platform/build_info.py, torch/version.py,
  // paddle/version/__init__.py, the distribution's name, or the conda record's build string.
  std::optional<std::string> declared_by;
  // The build's own shared object that links the CUDA libraries (torch/lib/libtorch_cuda.so ...),
  // and what the loader gives it for each CUDA/cuDNN library it needs, through its RPATH/RUNPATH:
  // the NVIDIA wheels' directories are seen here.
  std::optional<std::string> module;
  std::vector<LibraryFact> libraries;
  // XLA builds (TensorFlow, JAX): the CUDA roots XLA searches for nvvm/libdevice, in its order,
  // and the libdevice directory found there (null: none, XLA warns "Can't find libdevice").
  std::vector<std::string> libdevice_roots;
  std::optional<std::string> libdevice;
  // The build's libraries that carry GPU code (Framework::gpu_code_files), those found.
  std::vector<GpuCodeFact> gpu_code;
};

// A wheel of NVIDIA's CUDA libraries (nvidia-cudnn-cu12, nvidia-cuda-runtime ...).
struct NvidiaWheelFact {
  std::string package;
  std::string version;
  std::string component;               // cudart, cudnn, cublas ...
  std::string cuda_major;              // of the CUDA release it belongs to
  std::optional<std::string> lib_dir;  // where its libraries are, when that directory exists
};

// A conda package the knowledge base knows (a framework build, cudatoolkit, cudnn ...).
struct CondaPackageFact {
  std::string name;
  std::string version;
  std::string build;
  std::optional<std::string> channel;
};

// Triton, installed with PyTorch 2 on Linux (triton, pytorch-triton) or on its own on Windows
// (triton-windows): torch.compile and Triton kernels build a small C launcher with a C compiler
// the first time they run.
struct TritonFact {
  std::string package;
  std::string version;
  // The compiler Triton would run, found as its runtime/build.py looks: CC; else triton-windows'
  // bundled TinyCC, cl; else gcc, clang on PATH. Null: none.
  std::optional<std::string> c_compiler;
  std::optional<std::string> cc;  // CC's value when it names no program (a folder, a missing file)
  // Whether its sources link the launcher with -lcuda, the unversioned libcuda.so (spelt
  // libraries = ['cuda'] or "-lcuda"); Triton's main branch links libcuda.so.1 instead since its
  // PR 8668 (issue 8667). Null: its sources were not found (triton-windows, another layout).
  std::optional<bool> links_lcuda;
};

struct PythonEnvFact {
  std::string path;  // the prefix, links resolved
  std::string kind;  // conda | venv | pyenv | system | python.org | user
  std::optional<std::string> python;
  // Where the version came from: pyvenv.cfg | conda-meta | patchlevel.h | lib-dir.
  std::optional<std::string> python_source;
  bool active = false;   // what `python` runs now (VIRTUAL_ENV, CONDA_PREFIX, PATH, pyenv)
  std::string found_by;  // the discovery row that found it first
  std::vector<std::string> site_packages;  // in the order Python searches them
  int distributions = 0;                   // installed distributions over all of them
  std::vector<NvidiaWheelFact> nvidia_wheels;
  std::vector<CondaPackageFact> conda_packages;
  std::vector<FrameworkFact> frameworks;
  std::optional<TritonFact> triton;
};

// A C++ compiler nvcc may run for host code on Linux. nvcc's own choice is NVCC_CCBIN's, else
// the first gcc on PATH (what nvcc -dryrun shows it calling); builds may hand it another as
// -ccbin: PyTorch's extension builds pass CC, CMake passes CUDAHOSTCXX.
struct HostCompilerFact {
  std::string path;       // the program as found
  std::string real_path;  // links followed
  std::string source;  // NVCC_CCBIN | PATH | CC | CUDAHOSTCXX | VISUAL_STUDIO (an installed MSVC)
  std::string family;  // gcc | clang | msvc | other (NVHPC's nvc++, Intel's icpx ...)
  // `gcc -dumpversion` ("12", "6.3.0"), else gcc-N's N; MSVC: its toolset folder ("14.44.35207")
  std::optional<std::string> version;
  std::optional<int> msc_ver;  // MSVC: the _MSC_VER its toolset version means (14.44 is 1944)
  // Other GCCs installed beside it as gcc-N in the PATH's directories ("/usr/bin/gcc-11"), the
  // first of each major, by major ascending.
  std::vector<std::string> other_gcc;
};

// A Slurm node's GPUs as its configuration sees them (Linux): what slurm.conf configures for this
// host and what gres.conf tells slurmd to find. slurmctld drains a node that reports fewer GPUs
// than configured, and slurmd stops when a File= device it was told of does not exist.
struct SlurmFacts {
  std::string conf;                 // the slurm.conf read
  std::optional<std::string> node;  // the NodeName this host is, when a line names it
  // Its Gres= GPUs (gpu, gpu:N, gpu:TYPE:N, summed); null where no line names this node or
  // none gives it a gpu GRES.
  std::optional<std::int64_t> configured_gpus;
  std::optional<std::string> gres_conf;   // the gres.conf beside slurm.conf, when present
  std::optional<std::string> autodetect;  // its AutoDetect= for this node (nvml, nvidia, off ...)
  std::vector<std::string> gpu_files;     // its File= of Name=gpu lines for this node, expanded
  std::vector<std::string> missing_gpu_files;  // of those, the ones that do not exist
  // Run inside a Slurm job ($SLURM_JOB_ID set, as under fleet collect --slurm): the driver answers
  // for the job's GPUs only, not the node's.
  bool in_job = false;
  bool operator==(const SlurmFacts&) const = default;
};

// The NVIDIA Container Toolkit on a Linux host: the program that told its release, and the release
// (null: it printed none this probe reads).
struct ContainerToolkitFact {
  std::string program;  // nvidia-ctk, else nvidia-container-runtime, as found on PATH
  std::optional<std::string> version;
  bool operator==(const ContainerToolkitFact&) const = default;
};

struct Facts {
  OsFacts os;
  EnvFacts env;
  HardwareFacts hardware;
  std::optional<DriverFacts> driver;
  std::vector<GpuFact> gpus;
  std::vector<CudaToolkitFact> cuda_toolkits;
  std::optional<std::string> nvcc;  // the first nvcc on PATH, links followed
  // nvcc's own host compiler first (NVCC_CCBIN or PATH), then CC's and CUDAHOSTCXX's when set.
  std::vector<HostCompilerFact> host_compilers;
  std::vector<LibraryFact> libraries;
  std::vector<CudnnFact> cudnn;
  std::vector<PythonEnvFact> python_envs;
  std::optional<SlurmFacts> slurm;                        // null: no slurm.conf found
  std::optional<ContainerToolkitFact> container_toolkit;  // null: none on PATH
};

nlohmann::ordered_json facts_to_json(const Facts& facts);

}  // namespace gpuvet
