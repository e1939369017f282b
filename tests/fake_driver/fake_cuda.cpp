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
  return 0;
}

int cuDeviceTotalMem_v2(std::size_t* bytes, int) {
  *bytes = std::size_t{12} << 30;
  return 0;
}

}  // extern "C"
