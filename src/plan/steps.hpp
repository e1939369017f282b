#pragma once
// The install steps of a plan option, with the exact commands for its platform.
#include "core/result.hpp"
#include "kb/kb.hpp"
#include "kb/messages.hpp"
#include "plan/plan.hpp"

namespace gpuvet::plan {

// Fills the option's package spec, index URL, steps and notes.
Result<bool> add_install_steps(Option& option, const Request& request, const kb::Kb& kb,
                               const kb::Messages& messages);

// The default CUDA install folder on a platform: /usr/local/cuda-X.Y or
// C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\vX.Y.
std::string toolkit_folder(const std::string& platform, const std::string& cuda);

// The Python version the option's environment is created with: the request's when the build
// takes it (or says nothing), otherwise the newest the build takes; empty when unknown.
std::string environment_python(const Option& option, const Request& request);

// "tf-2.1.0", "torch-2.1-cu121", "jax-cuda12".
std::string environment_name(const Option& option);

}  // namespace gpuvet::plan
