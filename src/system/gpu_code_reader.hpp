#pragma once
// Reads which GPU code a CUDA-built library carries: the SASS and PTX architectures listed in the
// CUDA fat binaries of an ELF file (section .nv_fatbin) or a PE file (.nv_fatb, the name cut to
// COFF's eight bytes). Only the section table and each fat-binary entry's header are read, never
// the code itself, so a 1 GB libtorch_cuda.so costs a few thousand small reads. The file is
// untrusted: every offset is checked against its section, every count is capped, errors are
// one-line values. The format and its sources: docs/gpu-code.md.
#include <cstdint>

#include "core/result.hpp"
#include "system/elf_reader.hpp"
#include "system/system.hpp"

namespace gpuvet::sys {

// libcublasLt.so.13 holds some 5 400 entries; a million is far above any real library.
inline constexpr std::uint64_t kMaxFatbinEntries = std::uint64_t{1} << 20;
// COFF's own limit on the number of sections.
inline constexpr std::uint64_t kMaxPeSections = 65535;

// A file that is neither ELF nor PE is an error; one without fat binaries has empty lists.
// Relocatable device code (__nv_relfatbin, for a later device link) is not code the driver loads
// and is not read.
Result<GpuCode> read_gpu_code(const ByteSource& source);

}  // namespace gpuvet::sys
