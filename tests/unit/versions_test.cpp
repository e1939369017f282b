#include "kb/versions.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpuvet::kb {
namespace {

TEST(CudnnVersion, DecodesBothEncodings) {
  const Kb& kb = testing::embedded_kb();
  EXPECT_EQ(decode_cudnn_version(kb, 7605), "7.6.5");
  EXPECT_EQ(decode_cudnn_version(kb, 8907), "8.9.7");
  EXPECT_EQ(decode_cudnn_version(kb, 91900), "9.19.0");
  EXPECT_EQ(decode_cudnn_version(kb, 90100), "9.1.0");
  EXPECT_EQ(decode_cudnn_version(kb, 0), std::nullopt);
  EXPECT_EQ(decode_cudnn_version(kb, -5), std::nullopt);
  EXPECT_EQ(decode_cudnn_version(kb, 12), std::nullopt) << "major 0 is no cuDNN";
}

}  // namespace
}  // namespace gpuvet::kb
