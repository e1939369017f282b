// The smallest CUDA code that gives nvcc something to compile for each architecture: the tests
// read back which architectures its fat binary lists, never run it.
__global__ void gpuvet_fixture_add(float* a, const float* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += b[i];
}

extern "C" void gpuvet_fixture_launch(float* a, const float* b, int n) {
  gpuvet_fixture_add<<<(n + 255) / 256, 256>>>(a, b, n);
}
