// libFuzzer target for the GPU-code reader: whatever the bytes (ELF and PE headers, section
// tables, fat-binary containers and entries), an answer or a one-line error, no crash, no hang,
// bounded memory. Built and run by scripts/fuzz.sh, seeded with the fixture libraries of
// tests/gpu_code.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "system/gpu_code_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const gpuvet::sys::MemoryByteSource source(
      std::string_view(reinterpret_cast<const char*>(data), size));
  const auto code = gpuvet::sys::read_gpu_code(source);
  if (!code && code.error().message.find('\n') != std::string::npos) std::abort();
  return 0;
}
