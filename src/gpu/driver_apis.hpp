#pragma once
// The vendor entry points gpuvet calls, declared once per library (STYLE.md: an X-macro table
// generates the typed pointers and the "missing symbol" report). Signatures from nvml.h and
// cuda.h; only plain C types cross the boundary.
#include <cstddef>
#include <string>

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
#define GPUVET_NVML_ENTRY_POINTS(X)                                                              \
  X(nvmlInit_v2, nvmlReturn, (), true)                                                           \
  X(nvmlShutdown, nvmlReturn, (), true)                                                          \
  X(nvmlErrorString, const char*, (nvmlReturn), false)                                           \
  X(nvmlSystemGetDriverVersion, nvmlReturn, (char*, unsigned int), true)                         \
  X(nvmlSystemGetCudaDriverVersion_v2, nvmlReturn, (int*), false)                                \
  X(nvmlDeviceGetCount_v2, nvmlReturn, (unsigned int*), true)                                    \
  X(nvmlDeviceGetHandleByIndex_v2, nvmlReturn, (unsigned int, nvmlDevice*), true)                \
  X(nvmlDeviceGetName, nvmlReturn, (nvmlDevice, char*, unsigned int), false)                     \
  X(nvmlDeviceGetUUID, nvmlReturn, (nvmlDevice, char*, unsigned int), false)                     \
  X(nvmlDeviceGetPciInfo_v3, nvmlReturn, (nvmlDevice, NvmlPciInfo*), false)                      \
  X(nvmlDeviceGetCudaComputeCapability, nvmlReturn, (nvmlDevice, int*, int*), false)             \
  X(nvmlDeviceGetMemoryInfo, nvmlReturn, (nvmlDevice, NvmlMemory*), false)                       \
  X(nvmlDeviceGetComputeMode, nvmlReturn, (nvmlDevice, int*), false)                             \
  X(nvmlDeviceGetCurrPcieLinkGeneration, nvmlReturn, (nvmlDevice, unsigned*), false)             \
  X(nvmlDeviceGetCurrPcieLinkWidth, nvmlReturn, (nvmlDevice, unsigned*), false)                  \
  X(nvmlDeviceGetEccMode, nvmlReturn, (nvmlDevice, int*, int*), false)                           \
  X(nvmlDeviceGetPersistenceMode, nvmlReturn, (nvmlDevice, int*), false)                         \
  X(nvmlDeviceGetDriverModel, nvmlReturn, (nvmlDevice, int*, int*), false)                       \
  X(nvmlDeviceGetMigMode, nvmlReturn, (nvmlDevice, unsigned*, unsigned*), false)                 \
  X(nvmlDeviceGetTotalEccErrors, nvmlReturn, (nvmlDevice, int, int, unsigned long long*), false) \
  X(nvmlDeviceGetRemappedRows, nvmlReturn,                                                       \
    (nvmlDevice, unsigned*, unsigned*, unsigned*, unsigned*), false)

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
  X(cuDeviceGetUuid, CUresultCode, (unsigned char*, int), false) \
  X(cuDeviceTotalMem_v2, CUresultCode, (std::size_t*, int), false)

// What verify and bench call beyond the query: contexts, memory, events, modules, launches.
// CUdeviceptr is a 64-bit integer; contexts, events, modules, functions and streams are opaque.
using CUdeviceptr = unsigned long long;
using CUhandle = void*;
#define GPUVET_CUDA_BENCH_ENTRY_POINTS(X)                                                        \
  X(cuGetErrorName, CUresultCode, (CUresultCode, const char**), false)                           \
  X(cuDevicePrimaryCtxRetain, CUresultCode, (CUhandle*, int), true)                              \
  X(cuDevicePrimaryCtxRelease_v2, CUresultCode, (int), true)                                     \
  X(cuCtxSetCurrent, CUresultCode, (CUhandle), true)                                             \
  X(cuCtxSynchronize, CUresultCode, (), true)                                                    \
  X(cuMemGetInfo_v2, CUresultCode, (std::size_t*, std::size_t*), true)                           \
  X(cuMemAlloc_v2, CUresultCode, (CUdeviceptr*, std::size_t), true)                              \
  X(cuMemFree_v2, CUresultCode, (CUdeviceptr), true)                                             \
  X(cuMemAllocHost_v2, CUresultCode, (void**, std::size_t), true)                                \
  X(cuMemFreeHost, CUresultCode, (void*), true)                                                  \
  X(cuMemcpyHtoDAsync_v2, CUresultCode, (CUdeviceptr, const void*, std::size_t, CUhandle), true) \
  X(cuMemcpyDtoHAsync_v2, CUresultCode, (void*, CUdeviceptr, std::size_t, CUhandle), true)       \
  X(cuMemcpyDtoDAsync_v2, CUresultCode, (CUdeviceptr, CUdeviceptr, std::size_t, CUhandle), true) \
  X(cuMemcpyHtoD_v2, CUresultCode, (CUdeviceptr, const void*, std::size_t), true)                \
  X(cuMemcpyDtoH_v2, CUresultCode, (void*, CUdeviceptr, std::size_t), true)                      \
  X(cuEventCreate, CUresultCode, (CUhandle*, unsigned), true)                                    \
  X(cuEventRecord, CUresultCode, (CUhandle, CUhandle), true)                                     \
  X(cuEventSynchronize, CUresultCode, (CUhandle), true)                                          \
  X(cuEventElapsedTime, CUresultCode, (float*, CUhandle, CUhandle), true)                        \
  X(cuEventDestroy_v2, CUresultCode, (CUhandle), true)                                           \
  X(cuModuleLoadData, CUresultCode, (CUhandle*, const void*), true)                              \
  X(cuModuleGetFunction, CUresultCode, (CUhandle*, CUhandle, const char*), true)                 \
  X(cuModuleUnload, CUresultCode, (CUhandle), true)                                              \
  X(cuLaunchKernel, CUresultCode,                                                                \
    (CUhandle, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUhandle,   \
     void**, void**),                                                                            \
    true)

// cuBLAS (libcublas.so.N / cublas64_N.dll), version 11 and later: cublasGemmEx takes a
// cublasComputeType_t. Statuses and enums are ints.
#define GPUVET_CUBLAS_ENTRY_POINTS(X)                                                              \
  X(cublasCreate_v2, int, (CUhandle*), true)                                                       \
  X(cublasDestroy_v2, int, (CUhandle), true)                                                       \
  X(cublasGetVersion_v2, int, (CUhandle, int*), false)                                             \
  X(cublasGemmEx, int,                                                                             \
    (CUhandle, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int, \
     const void*, void*, int, int, int, int),                                                      \
    true)

// cuDNN (libcudnn.so.N / cudnn64_N.dll): the convolution forward of the legacy API, which every
// major from 7 to 9 exports.
#define GPUVET_CUDNN_ENTRY_POINTS(X)                                                            \
  X(cudnnGetVersion, std::size_t, (), true)                                                     \
  X(cudnnCreate, int, (CUhandle*), true)                                                        \
  X(cudnnDestroy, int, (CUhandle), true)                                                        \
  X(cudnnCreateTensorDescriptor, int, (CUhandle*), true)                                        \
  X(cudnnDestroyTensorDescriptor, int, (CUhandle), true)                                        \
  X(cudnnSetTensor4dDescriptor, int, (CUhandle, int, int, int, int, int, int), true)            \
  X(cudnnCreateFilterDescriptor, int, (CUhandle*), true)                                        \
  X(cudnnDestroyFilterDescriptor, int, (CUhandle), true)                                        \
  X(cudnnSetFilter4dDescriptor, int, (CUhandle, int, int, int, int, int, int), true)            \
  X(cudnnCreateConvolutionDescriptor, int, (CUhandle*), true)                                   \
  X(cudnnDestroyConvolutionDescriptor, int, (CUhandle), true)                                   \
  X(cudnnSetConvolution2dDescriptor, int, (CUhandle, int, int, int, int, int, int, int, int),   \
    true)                                                                                       \
  X(cudnnGetConvolution2dForwardOutputDim, int,                                                 \
    (CUhandle, CUhandle, CUhandle, int*, int*, int*, int*), true)                               \
  X(cudnnGetConvolutionForwardWorkspaceSize, int,                                               \
    (CUhandle, CUhandle, CUhandle, CUhandle, CUhandle, int, std::size_t*), true)                \
  X(cudnnConvolutionForward, int,                                                               \
    (CUhandle, const void*, CUhandle, const void*, CUhandle, const void*, CUhandle, int, void*, \
     std::size_t, const void*, CUhandle, void*),                                                \
    true)

// CBLAS (OpenBLAS, or the reference BLAS): the CPU side of the speedup.
#define GPUVET_CBLAS_ENTRY_POINTS(X)                                                           \
  X(cblas_sgemm, void,                                                                         \
    (int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, \
     int),                                                                                     \
    true)                                                                                      \
  X(openblas_get_num_threads, int, (), false)                                                  \
  X(openblas_get_config, const char*, (), false)

// cuda.h CUdevice_attribute values.
inline constexpr int kCuAttributeClockRate = 13;  // kHz
inline constexpr int kCuAttributeMultiprocessorCount = 16;
inline constexpr int kCuAttributeComputeMode = 20;
inline constexpr int kCuAttributeEccEnabled = 32;
inline constexpr int kCuAttributeTccDriver = 35;
inline constexpr int kCuAttributeMemoryClockRate = 36;       // kHz
inline constexpr int kCuAttributeGlobalMemoryBusWidth = 37;  // bits
inline constexpr int kCuAttributeL2CacheSize = 38;           // bytes
// library_types.h cudaDataType, cublas_api.h enums, cudnn enums, cblas.h enums.
inline constexpr int kCudaR32F = 0;
inline constexpr int kCudaR16F = 2;
inline constexpr int kCudaR16BF = 14;
inline constexpr int kCublasOpN = 0;
inline constexpr int kCublasCompute32F = 68;
inline constexpr int kCublasCompute32FFastTf32 = 77;
inline constexpr int kCublasGemmDefault = -1;
inline constexpr int kCudnnTensorNchw = 0;
inline constexpr int kCudnnDataFloat = 0;
inline constexpr int kCudnnCrossCorrelation = 1;
inline constexpr int kCudnnFwdAlgoImplicitPrecompGemm = 1;
inline constexpr int kCblasColMajor = 102;
inline constexpr int kCblasNoTrans = 111;
inline constexpr int kCuErrorStubLibrary = 34;
inline constexpr int kCuErrorNoDevice = 100;

// cuda.h: CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR.
inline constexpr int kCuAttributeComputeCapabilityMajor = 75;
inline constexpr int kCuAttributeComputeCapabilityMinor = 76;
// cuda.h: CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED (cuMemAllocAsync and the cuMemPool APIs).
inline constexpr int kCuAttributeMemoryPoolsSupported = 115;
// cuda.h: CUuuid is 16 bytes, the same UUID NVML prints as
// GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
inline constexpr int kCuUuidBytes = 16;
// nvml.h: NVML_SUCCESS, buffer sizes.
inline constexpr nvmlReturn kNvmlSuccess = 0;
inline constexpr unsigned kNvmlStringBuffer = 96;

// nvmlComputeMode_t and CUcomputemode share their values; named as nvidia-smi prints them.
inline std::string compute_mode_name(int mode) {
  switch (mode) {
    case 0:
      return "Default";
    case 1:
      return "Exclusive_Thread";
    case 2:
      return "Prohibited";
    case 3:
      return "Exclusive_Process";
    default:
      return std::to_string(mode);
  }
}

// nvmlDriverModel_t (nvml.h): what a Windows GPU runs under; named as nvidia-smi prints them.
// WDM is the compute-only driver NVIDIA calls TCC; MCDM is its successor on newer drivers.
inline std::string driver_model_name(int model) {
  switch (model) {
    case 0:
      return "WDDM";
    case 1:
      return "TCC";
    case 2:
      return "MCDM";
    default:
      return std::to_string(model);
  }
}

}  // namespace gpuvet::gpu
