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
  // PyTorch's cu121: such builds install from their own index, so only the driver they need is
  // said, not how to install them.
  std::string variant;
  std::string source;  // the table row's source
  // The NVIDIA driver that CUDA's runtime needs on the log's platform (WSL: the Windows driver);
  // empty when the platform or the driver is unknown.
  std::string min_driver;
  // CUDA 11 and later: the lowest driver the runtime still loads on (minor version
  // compatibility), when below min_driver.
  std::string driver_floor;
  std::string driver_source;
};

// None when the log names no framework version, names several frameworks, names a version of a
// framework with a build per CUDA variant without its variant (PyTorch's 2.1.0, not
// 2.1.0+cu121), its platform's builds of that version disagree on their CUDA or cuDNN (an unknown
// platform whose Linux and Windows builds differ), or the table does not say.
std::optional<BuildNeeds> build_needs(const kb::Kb& kb, const LogFacts& log,
                                      const std::string& platform);

}  // namespace gpuvet::explain
