// A fake NVML (libnvidia-ml.so.1): hangs in nvmlInit_v2 with FAKE_HANG, else answers for one GPU.
#include <unistd.h>

#include <cstdio>
#include <cstring>

extern "C" {

struct FakePciInfo {
  char bus_id_legacy[16];
  unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
struct FakeMemory {
  unsigned long long total, free, used;
};

int nvmlInit_v2() {
#if defined(FAKE_HANG)
  while (true)
    pause();
#endif
  return 0;
}
int nvmlShutdown() {
  return 0;
}
const char* nvmlErrorString(int) {
  return "fake error";
}
int nvmlSystemGetDriverVersion(char* out, unsigned length) {
  std::snprintf(out, length, "%s", "550.54.15");
  return 0;
}
int nvmlSystemGetCudaDriverVersion_v2(int* version) {
  *version = 12040;
  return 0;
}
int nvmlDeviceGetCount_v2(unsigned* count) {
  *count = 1;
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device) {
  *device = reinterpret_cast<void*>(static_cast<unsigned long>(index) + 1);
  return 0;
}
int nvmlDeviceGetName(void*, char* out, unsigned length) {
  std::snprintf(out, length, "%s", "NVIDIA GeForce RTX 3060");
  return 0;
}
int nvmlDeviceGetUUID(void*, char* out, unsigned length) {
  std::snprintf(out, length, "%s", "GPU-00000000-1111-2222-3333-444444444444");
  return 0;
}
int nvmlDeviceGetPciInfo_v3(void*, FakePciInfo* pci) {
  std::memset(pci, 0, sizeof *pci);
  pci->pci_device_id = (0x2504u << 16) | 0x10deu;
  return 0;
}
int nvmlDeviceGetCudaComputeCapability(void*, int* major, int* minor) {
  *major = 8;
  *minor = 6;
  return 0;
}
int nvmlDeviceGetMemoryInfo(void*, FakeMemory* memory) {
  memory->total = 12ull << 30;
  memory->free = memory->total;
  memory->used = 0;
  return 0;
}
int nvmlDeviceGetComputeMode(void*, int* mode) {
  *mode = 0;
  return 0;
}
int nvmlDeviceGetPersistenceMode(void*, int* mode) {
  *mode = 1;  // NVML_FEATURE_ENABLED
  return 0;
}
int nvmlDeviceGetEccMode(void*, int*, int*) {
  return 3;  // NVML_ERROR_NOT_SUPPORTED, as a GeForce answers
}
int nvmlDeviceGetMigMode(void*, unsigned*, unsigned*) {
  return 3;  // NVML_ERROR_NOT_SUPPORTED: no MIG on a GeForce
}
int nvmlDeviceGetTotalEccErrors(void*, int, int, unsigned long long*) {
  return 3;
}
int nvmlDeviceGetRemappedRows(void*, unsigned*, unsigned*, unsigned*, unsigned*) {
  return 3;
}

}  // extern "C"
