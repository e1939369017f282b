#pragma once
// The framework plug-ins, one accessor per file; registry.cpp lists them once.
#include "frameworks/framework.hpp"

namespace gpuvet::frameworks {

const Framework& tensorflow();
const Framework& torch();
const Framework& jax();
const Framework& cupy();
const Framework& paddle();
const Framework& onnxruntime();

}  // namespace gpuvet::frameworks
