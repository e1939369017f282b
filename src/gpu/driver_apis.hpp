#pragma once
// The vendor entry points gpuvet calls, declared once per library (STYLE.md: an X-macro table
// generates the typed pointers and the "missing symbol" report). Signatures from nvml.h and
// cuda.h; only plain C types cross the boundary.
#include <cstddef>

namespace gpuvet::gpu {

// NVML (libnvidia-ml.so.1 / nvml.dll). nvmlReturn_t is an int; nvmlDevice_t an opaque pointer.
using nvmlReturn = int;
using nvmlDevice = void*;
struct NvmlMemory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
struct NvmlPciInfo {  // nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3
  char bus_id_legacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pci_device_id;  // (device id << 16) | vendor id
  unsigned int pci_subsystem_id;
  char bus_id[32];
};

// X(name, return type, parameter list, required)
#define GPUVET_NVML_ENTRY_POINTS(X)                                                  \
  X(nvmlInit_v2, nvmlReturn, (), true)                                               \
  X(nvmlShutdown, nvmlReturn, (), true)                                              \
  X(nvmlErrorString, const char*, (nvmlReturn), false)                               \
  X(nvmlSystemGetDriverVersion, nvmlReturn, (char*, unsigned int), true)             \
  X(nvmlSystemGetCudaDriverVersion_v2, nvmlReturn, (int*), false)                    \
  X(nvmlDeviceGetCount_v2, nvmlReturn, (unsigned int*), true)                        \
  X(nvmlDeviceGetHandleByIndex_v2, nvmlReturn, (unsigned int, nvmlDevice*), true)    \
  X(nvmlDeviceGetName, nvmlReturn, (nvmlDevice, char*, unsigned int), false)         \
  X(nvmlDeviceGetUUID, nvmlReturn, (nvmlDevice, char*, unsigned int), false)         \
  X(nvmlDeviceGetPciInfo_v3, nvmlReturn, (nvmlDevice, NvmlPciInfo*), false)          \
  X(nvmlDeviceGetCudaComputeCapability, nvmlReturn, (nvmlDevice, int*, int*), false) \
  X(nvmlDeviceGetMemoryInfo, nvmlReturn, (nvmlDevice, NvmlMemory*), false)           \
  X(nvmlDeviceGetComputeMode, nvmlReturn, (nvmlDevice, int*), false)

// The CUDA driver API (libcuda.so.1 / nvcuda.dll). CUresult and CUdevice are ints.
using CUresultCode = int;
// X(name, return type, parameter list, required)
#define GPUVET_CUDA_ENTRY_POINTS(X)                              \
  X(cuInit, CUresultCode, (unsigned int), true)                  \
  X(cuDriverGetVersion, CUresultCode, (int*), true)              \
  X(cuDeviceGetCount, CUresultCode, (int*), true)                \
  X(cuDeviceGet, CUresultCode, (int*, int), true)                \
  X(cuDeviceGetName, CUresultCode, (char*, int, int), false)     \
  X(cuDeviceGetAttribute, CUresultCode, (int*, int, int), false) \
  X(cuDeviceTotalMem_v2, CUresultCode, (std::size_t*, int), false)

// cuda.h: CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR.
inline constexpr int kCuAttributeComputeCapabilityMajor = 75;
inline constexpr int kCuAttributeComputeCapabilityMinor = 76;
// nvml.h: NVML_SUCCESS, buffer sizes.
inline constexpr nvmlReturn kNvmlSuccess = 0;
inline constexpr unsigned kNvmlStringBuffer = 96;

}  // namespace gpuvet::gpu
