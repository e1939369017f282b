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
};

struct EnvFacts {
  // The GPU-, path- and framework-related variables (redact::is_kept), values scrubbed.
  std::map<std::string, std::string> variables;
  std::vector<std::string> path;             // PATH split in search order
  std::vector<std::string> ld_library_path;  // LD_LIBRARY_PATH split in search order
};

struct DriverFacts {
  bool installed = false;
  std::optional<std::string> version;
  std::optional<std::string> cuda_driver_version;
  std::optional<std::string> error;
};

struct GpuFact {
  int index = 0;
  std::optional<std::string> name;
  std::optional<std::string> uuid;
  std::optional<std::string> pci_id;
  std::optional<std::string> compute_capability;
  std::optional<std::int64_t> memory_mib;
  std::optional<std::string> driver_model;
};

struct CudaToolkitFact {
  std::optional<std::string> version;
  std::string root;
  bool on_path = false;
  std::string source;  // CUDA_PATH | registry | path | default-location | pip | conda
};

struct CudnnFact {
  std::optional<std::string> version;
  std::string location;
  std::string source;  // header | library | pip | conda
};

struct FrameworkFact {
  std::string name;     // family: tensorflow, torch, jax, cupy, paddle
  std::string package;  // the distribution: tensorflow-gpu, jax-cuda12-plugin ...
  std::optional<std::string> version;
  std::optional<bool> gpu_build;
  std::optional<std::string> cuda;
  std::optional<std::string> cudnn;
};

struct PythonEnvFact {
  std::string path;
  std::string kind;  // conda | venv | pyenv | system | python.org
  std::optional<std::string> python;
  bool active = false;
  std::vector<FrameworkFact> frameworks;
};

struct Facts {
  OsFacts os;
  EnvFacts env;
  std::optional<DriverFacts> driver;
  std::vector<GpuFact> gpus;
  std::vector<CudaToolkitFact> cuda_toolkits;
  std::vector<CudnnFact> cudnn;
  std::vector<PythonEnvFact> python_envs;
};

nlohmann::ordered_json facts_to_json(const Facts& facts);

}  // namespace gpuvet
