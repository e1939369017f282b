// CPUs without a SIMD Teddy scan here: the literal filter uses its Wu-Manber scan instead.
#include "explain/teddy.hpp"

namespace gpuvet::explain::teddy {

bool simd_supported() {
  return false;
}

size_t find(const Masks& masks, const unsigned char* data, size_t size, size_t from, Verify verify,
            const void* context) {
  return find_scalar(masks, data, size, from, verify, context);
}

}  // namespace gpuvet::explain::teddy
