#pragma once
// The CUDA and cuDNN a framework build the log names was made with, so that a missing or
// mismatched CUDA library's fix names them exactly (TensorFlow 2.10 needs CUDA 11.2 and cuDNN 8.1,
// not "a CUDA 11.x"): from the framework's version the log prints or lists, read with the
// framework's build table (data/tensorflow_builds.csv ...).
#include <optional>
#include <string>

#include "explain/explain.hpp"
#include "kb/kb.hpp"

namespace gpuvet::explain {

struct BuildNeeds {
  std::string framework;  // as users name it: TensorFlow
  std::string version;    // as the log printed it: 2.10.0
  std::string cuda;       // 11.2
  std::string cudnn;      // 8.1; empty when the table does not say
  std::string package;  // what pip installs it as, when its wheels bring CUDA: tensorflow[and-cuda]
  bool wheels_bring_cuda = false;
  std::string variant;  // cu121, post112, cuda12
  // PyTorch's cu121 and PaddlePaddle 3's wheels bring CUDA but install from their own index: only
  // the driver they need is said, not how to install them.
  bool own_index = false;
  std::string source;  // the table row's source
  // The NVIDIA driver that CUDA's runtime needs on the log's platform (WSL: the Windows driver);
  // empty when the platform or the driver is unknown.
  std::string min_driver;
  // CUDA 11 and later: the lowest driver the runtime still loads on (minor version
  // compatibility), when below min_driver.
  std::string driver_floor;
  std::string driver_source;
  // The oldest driver the build's CUDA runtime loads on (the floor of minor version
  // compatibility, else the release's driver), the lowest of the platforms the log may be;
  // empty when unknown.
  std::string loads_from;
};

// A framework build a pip listing in the log names (pip list, pip freeze, "Successfully
// installed"), its distribution read as a family through data/python_packages.csv.
struct ListedBuild {
  std::string family;   // paddle
  std::string package;  // paddlepaddle-gpu
  LogFacts::Seen seen;  // its version and line
};
std::vector<ListedBuild> listed_builds(const kb::Kb& kb, const LogFacts& log);

// Every build the log's framework version can be: usually one; one per CUDA variant where its
// spelling leaves the variant open (ONNX Runtime 1.18.0 is the CUDA 11.8 build on PyPI and the
// CUDA 12.2 build on its own feed). The variant is read where the version spells it: PyTorch's
// 2.1.0+cu121, PaddlePaddle's 2.4.0.post112 (its unsuffixed 2.4.0 being the build pip installs
// without an index). None when the log names no framework version or several frameworks, the
// framework is PyTorch and its printed version does not name the variant, or the table does not
// say. A log that does not say its platform keeps only builds Linux and Windows agree on.
std::vector<BuildNeeds> build_candidates(const kb::Kb& kb, const LogFacts& log,
                                         const std::string& platform);

// The candidate a cause's fix can name: of those whose CUDA and cuDNN majors agree with what the
// cause's line asks for (libcublasLt.so.12: CUDA 12), the one left; none when they still differ.
// Only a missing or other CUDA runtime, a missing or mismatched cuDNN, or a driver too old.
std::optional<BuildNeeds> build_for(const Cause& cause, const std::vector<BuildNeeds>& candidates);

}  // namespace gpuvet::explain
