// What the knowledge base says of one compute capability, and whether a build's arch list runs
// there: the facts `kb gpu` and `plan` answer from.
#include "kb/arch_support.hpp"

#include <gtest/gtest.h>

#include "frameworks/cc_support.hpp"
#include "test_support.hpp"

namespace gpuvet {
namespace {

TEST(ArchSupport, CudaRangeOfAnAmpereCardStartsWhereItsArchitectureDid) {
  auto range = kb::cuda_range_for_cc(testing::embedded_kb(), "8.6");
  ASSERT_TRUE(range.ok());
  EXPECT_EQ(range->from, "11.1");
  EXPECT_TRUE(range->to_is_newest);
  EXPECT_TRUE(range->dropped_in.empty());
}

TEST(ArchSupport, KeplerEndsWithTheToolkitBeforeItsFloorPassedIt) {
  auto range = kb::cuda_range_for_cc(testing::embedded_kb(), "3.5");
  ASSERT_TRUE(range.ok());
  EXPECT_EQ(range->to, "11.8");
  EXPECT_FALSE(range->to_is_newest);
  EXPECT_EQ(range->dropped_in, "12.0");
  auto driver = kb::driver_branch_for_cc(testing::embedded_kb(), "3.5");
  ASSERT_TRUE(driver.ok());
  EXPECT_FALSE(driver->current);
  EXPECT_EQ(driver->last_branch, "R470");
}

TEST(ArchSupport, UnknownCapabilitiesStayUnknown) {
  auto range = kb::cuda_range_for_cc(testing::embedded_kb(), "not-a-cc");
  ASSERT_TRUE(range.ok());
  EXPECT_TRUE(range->from.empty());
  auto driver = kb::driver_branch_for_cc(testing::embedded_kb(), "99.9");
  ASSERT_TRUE(driver.ok());
  EXPECT_FALSE(driver->row) << "a CC the matrix does not list has no driver branch";
}

TEST(ArchSupport, ArchListsRunOnTheirMajorAndPtxRunsOnNewerGpus) {
  using frameworks::arch_list_runs_on;
  EXPECT_TRUE(arch_list_runs_on({"8.0"}, "8.6")) << "a cubin runs on a later minor";
  EXPECT_FALSE(arch_list_runs_on({"8.6"}, "8.0")) << "not on an earlier one";
  EXPECT_FALSE(arch_list_runs_on({"8.0", "9.0"}, "12.0")) << "nor on another major";
  EXPECT_TRUE(arch_list_runs_on({"8.0", "9.0+PTX"}, "12.0")) << "PTX is JIT-compiled";
  EXPECT_FALSE(arch_list_runs_on({"9.0+PTX"}, "8.6")) << "PTX only for newer GPUs";
}

}  // namespace
}  // namespace gpuvet
