// Many host-to-device copies, every one verified: a transfer path that
// fails now and then (a race, a retried DMA) is caught with a stated
// probability, not by luck.
//
// If each copy is corrupted independently with probability p = 1/500, all N
// copies escape with probability (1 - p)^N. Catching it in >= 99.9 % of runs
// needs (499/500)^N <= 0.001, i.e. N >= ln(0.001) / ln(0.998) = 3450.4.
// N = 4096 leaves (0.998)^4096 = e^(4096 * ln 0.998) = e^-8.20 = 2.7e-4:
// caught in 99.97 % of runs.
#include <ATen/ATen.h>

#include <vector>

#include "tdc/fixtures.h"
#include "tdc/patterns.h"

namespace {

constexpr int kCopies = 4096;
constexpr int kShownFailures = 3;

using CopySoak = tdc::DeviceTest;

TEST_P(CopySoak, EveryOneOf4096CopiesIsExact) {
  // Odd-sized and not a power of two; dtypes rotate so that every copy is
  // not the same bytes.
  const std::vector<at::Tensor> sources{tdc::salted_pattern({1021}, at::kFloat, 5),
                                        tdc::salted_pattern({1021}, at::kInt, 5),
                                        tdc::salted_pattern({1021}, at::kHalf, 5)};
  int failed = 0;
  for (int i = 0; i < kCopies; ++i) {
    const auto& source = sources[i % sources.size()];
    const auto copy = source.to(device(), source.scalar_type(), false, /*copy=*/true);
    const auto result = tdc::same_elements(copy, source);
    if (!result && ++failed <= kShownFailures) {
      ADD_FAILURE() << "copy " << i << " of " << kCopies << ": " << result.message();
    }
  }
  EXPECT_EQ(failed, 0) << failed << " of " << kCopies << " host-to-device copies were wrong";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(CopySoak);

}  // namespace
