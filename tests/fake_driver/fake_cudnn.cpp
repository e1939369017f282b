// A fake cuDNN whose cudnnGetVersion() answers FAKE_CUDNN_VERSION (the library's own encoding).
#include <cstddef>

extern "C" std::size_t cudnnGetVersion() {
  return FAKE_CUDNN_VERSION;
}
