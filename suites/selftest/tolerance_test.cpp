#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "tdc/tolerance.h"

namespace {

TEST(Tolerance, FollowsTorchTestingDefaults) {
  EXPECT_DOUBLE_EQ(tdc::tolerance_for(at::kFloat).rtol, 1.3e-6);
  EXPECT_DOUBLE_EQ(tdc::tolerance_for(at::kBFloat16).rtol, 1.6e-2);
  EXPECT_DOUBLE_EQ(tdc::tolerance_for(at::kHalf).rtol, 1e-3);
  EXPECT_DOUBLE_EQ(tdc::tolerance_for(at::kDouble).atol, 1e-7);
}

TEST(Tolerance, AcceptsWithinAndRejectsBeyond) {
  const auto expected = at::ones({4, 2}, at::kDouble);
  const auto tolerance = tdc::tolerance_for(at::kFloat);
  EXPECT_TRUE(tdc::all_close(expected + 5e-6, expected, tolerance));
  EXPECT_FALSE(tdc::all_close(expected + 1e-4, expected, tolerance));
  auto wrong = expected.clone();
  wrong[2][1] = std::nan("");
  EXPECT_FALSE(tdc::all_close(wrong, expected, tolerance));
  EXPECT_FALSE(tdc::all_close(at::ones({2, 4}, at::kDouble), expected, tolerance));
}

}  // namespace
