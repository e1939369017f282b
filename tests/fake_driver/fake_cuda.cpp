// A fake CUDA driver (libcuda.so.1) whose behaviour is chosen at build time, so that the tests
// can watch gpuvet survive a driver that crashes, hangs, is a stub, or works.
#include <unistd.h>

#include <csignal>
#include <cstddef>
#include <cstdio>
#include <cstring>

extern "C" {

int cuInit(unsigned int) {
#if defined(FAKE_CRASH)
  std::raise(SIGSEGV);
  return 999;
#elif defined(FAKE_HANG)
  while (true)
    pause();
#elif defined(FAKE_STUB)
  return 34;  // CUDA_ERROR_STUB_LIBRARY
#elif defined(FAKE_GARBAGE)
  std::fputs("{\"this is\": not what gpuvet expects", stdout);
  std::fflush(stdout);
  _exit(0);
#else
  return 0;
#endif
}

int cuDriverGetVersion(int* version) {
  *version = 12040;
  return 0;
}

int cuDeviceGetCount(int* count) {
  *count = 1;
  return 0;
}

int cuDeviceGet(int* device, int ordinal) {
  if (ordinal != 0) return 101;  // CUDA_ERROR_INVALID_DEVICE
  *device = 0;
  return 0;
}

int cuDeviceGetName(char* name, int length, int) {
  std::snprintf(name, static_cast<std::size_t>(length), "%s", "Fake GPU 3060");
  return 0;
}

int cuDeviceGetAttribute(int* value, int attribute, int) {
  *value = attribute == 75 ? 8 : attribute == 76 ? 6 : 0;  // compute capability 8.6
#if !defined(FAKE_NOPOOLS)
  if (attribute == 115) *value = 1;  // CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED
#endif
  return 0;
}

// The fake NVML's GPU-00000000-1111-2222-3333-444444444444.
int cuDeviceGetUuid(unsigned char* uuid, int) {
  const unsigned char bytes[16] = {0x00, 0x00, 0x00, 0x00, 0x11, 0x11, 0x22, 0x22,
                                   0x33, 0x33, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44};
  std::memcpy(uuid, bytes, sizeof bytes);
  return 0;
}

int cuDeviceTotalMem_v2(std::size_t* bytes, int) {
  *bytes = std::size_t{12} << 30;
  return 0;
}

}  // extern "C"

// What verify and bench call, done on the host: "device" memory is host memory, a launch runs
// the kernel's arithmetic on the CPU, events read the clock. It exercises gpuvet's plumbing (the
// child, its output, the data checks); it measures nothing about any GPU.
#include <chrono>
#include <cstdlib>

extern "C" {

using fake_handle = void*;

int cuGetErrorName(int, const char** name) {
  *name = "CUDA_ERROR_FAKE";
  return 0;
}
int cuDevicePrimaryCtxRetain(fake_handle* context, int) {
  *context = reinterpret_cast<fake_handle>(1);
  return 0;
}
int cuDevicePrimaryCtxRelease_v2(int) {
  return 0;
}
int cuCtxSetCurrent(fake_handle) {
  return 0;
}
int cuCtxSynchronize() {
  return 0;
}
int cuMemGetInfo_v2(std::size_t* free_bytes, std::size_t* total) {
  *free_bytes = std::size_t{512} << 20;  // small, so that the buffers stay small
  *total = std::size_t{12} << 30;
  return 0;
}
int cuMemAlloc_v2(unsigned long long* pointer, std::size_t bytes) {
  void* p = std::malloc(bytes);
  if (!p) return 2;  // CUDA_ERROR_OUT_OF_MEMORY
  *pointer = reinterpret_cast<unsigned long long>(p);
  return 0;
}
int cuMemFree_v2(unsigned long long pointer) {
  std::free(reinterpret_cast<void*>(pointer));
  return 0;
}
int cuMemAllocHost_v2(void** pointer, std::size_t bytes) {
  *pointer = std::malloc(bytes);
  return *pointer ? 0 : 2;
}
int cuMemFreeHost(void* pointer) {
  std::free(pointer);
  return 0;
}
int cuMemcpyHtoD_v2(unsigned long long dst, const void* src, std::size_t bytes) {
  std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
  return 0;
}
int cuMemcpyDtoH_v2(void* dst, unsigned long long src, std::size_t bytes) {
  std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
  return 0;
}
int cuMemcpyHtoDAsync_v2(unsigned long long dst, const void* src, std::size_t bytes, fake_handle) {
  return cuMemcpyHtoD_v2(dst, src, bytes);
}
int cuMemcpyDtoHAsync_v2(void* dst, unsigned long long src, std::size_t bytes, fake_handle) {
  return cuMemcpyDtoH_v2(dst, src, bytes);
}
int cuMemcpyDtoDAsync_v2(unsigned long long dst, unsigned long long src, std::size_t bytes,
                         fake_handle) {
  std::memcpy(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
  return 0;
}
int cuEventCreate(fake_handle* event, unsigned) {
  *event = new std::chrono::steady_clock::time_point();
  return 0;
}
int cuEventRecord(fake_handle event, fake_handle) {
  *static_cast<std::chrono::steady_clock::time_point*>(event) = std::chrono::steady_clock::now();
  return 0;
}
int cuEventSynchronize(fake_handle) {
  return 0;
}
int cuEventElapsedTime(float* ms, fake_handle start, fake_handle stop) {
  const auto a = *static_cast<std::chrono::steady_clock::time_point*>(start);
  const auto b = *static_cast<std::chrono::steady_clock::time_point*>(stop);
  *ms = std::chrono::duration<float, std::milli>(b - a).count() + 1e-4f;
  return 0;
}
int cuEventDestroy_v2(fake_handle event) {
  delete static_cast<std::chrono::steady_clock::time_point*>(event);
  return 0;
}
int cuModuleLoadData(fake_handle* module, const void* image) {
  const char* ptx = static_cast<const char*>(image);
  if (!std::strstr(ptx, ".entry gpuvet_fill") || !std::strstr(ptx, ".entry gpuvet_triad")) {
    return 218;  // CUDA_ERROR_INVALID_PTX
  }
  *module = const_cast<void*>(image);
  return 0;
}
int cuModuleGetFunction(fake_handle* function, fake_handle, const char* name) {
  if (std::strcmp(name, "gpuvet_fill") == 0) {
    *function = reinterpret_cast<fake_handle>(1);
  } else if (std::strcmp(name, "gpuvet_triad") == 0) {
    *function = reinterpret_cast<fake_handle>(2);
  } else {
    return 500;  // CUDA_ERROR_NOT_FOUND
  }
  return 0;
}
int cuModuleUnload(fake_handle) {
  return 0;
}
int cuLaunchKernel(fake_handle function, unsigned gx, unsigned, unsigned, unsigned bx, unsigned,
                   unsigned, unsigned, fake_handle, void** args, void**) {
  const unsigned long long threads = static_cast<unsigned long long>(gx) * bx;
  if (function == reinterpret_cast<fake_handle>(1)) {
    auto* out = reinterpret_cast<unsigned*>(*static_cast<unsigned long long*>(args[0]));
    const unsigned n = *static_cast<unsigned*>(args[1]);
    for (unsigned i = 0; i < n && i < threads; ++i)
      out[i] = i * 40503u + 7u;
    return 0;
  }
  auto* a = reinterpret_cast<float*>(*static_cast<unsigned long long*>(args[0]));
  const auto* b = reinterpret_cast<const float*>(*static_cast<unsigned long long*>(args[1]));
  const auto* c = reinterpret_cast<const float*>(*static_cast<unsigned long long*>(args[2]));
  const float s = *static_cast<float*>(args[3]);
  const unsigned n = *static_cast<unsigned*>(args[4]);
  for (unsigned i = 0; i < n && i < threads; ++i)
    a[i] = b[i] + s * c[i];
  return 0;
}

}  // extern "C"
