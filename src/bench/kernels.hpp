#pragma once
// The kernels verify and bench launch, shipped as PTX text and JIT-compiled by the driver: no
// CUDA toolkit is needed on the machine. PTX ISA 5.0 for sm_30 is what CUDA 8.0 (the oldest
// toolkit in the knowledge base) writes; every later driver JIT-compiles it for its GPUs.
namespace gpuvet::bench {

// gpuvet_fill(u32* out, u32 n): out[i] = i * 40503 + 7, for a launch the host can check.
// gpuvet_triad(f32* a, const f32* b, const f32* c, f32 s, u32 n): a[i] = b[i] + s * c[i].
extern const char* const kKernelsPtx;
inline constexpr const char* kFillKernel = "gpuvet_fill";
inline constexpr const char* kTriadKernel = "gpuvet_triad";

// What gpuvet_fill writes at index i.
inline unsigned fill_value(unsigned i) {
  return i * 40503u + 7u;
}

}  // namespace gpuvet::bench
