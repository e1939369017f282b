#include "core/version.hpp"

#include <gtest/gtest.h>

namespace gpuvet::version {
namespace {

TEST(Version, ComparesNumericallyPartByPart) {
  EXPECT_LT(compare("9.0.176", "10.1.243"), 0);
  EXPECT_GT(compare("11.8.89", "11.2"), 0);
  EXPECT_EQ(compare("12.4", "12.4.0"), 0);
  EXPECT_LT(compare("8.2.4", "8.9.7"), 0);
}

TEST(Version, AgreesOnThePartsBothHave) {
  EXPECT_TRUE(agree("9", "9.19.0"));
  EXPECT_TRUE(agree("8.9.7", "8.9.7"));
  EXPECT_FALSE(agree("8.9.7", "8.6.0"));
  EXPECT_FALSE(agree("9.1", "8"));
}

}  // namespace
}  // namespace gpuvet::version
