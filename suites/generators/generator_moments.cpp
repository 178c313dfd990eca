// 100,000 draws of randn on the device have mean 0 and variance 1 within
// five standard errors (1/sqrt(n) for the mean, sqrt(2/(n-1)) for the
// variance of normal samples). The same bounds reject 100,000 uniform
// draws, so the check can fail.
#include "draws.h"

#include "tdc/compat/generator.h"
#include "tdc/fixtures.h"

#include <ATen/ATen.h>

#include <cmath>
#include <sstream>

namespace {

using tdc::generators::manual_seed;

constexpr int64_t kSamples = 100000;

// Empty when the sample's moments are those of a standard normal.
std::string moments_off_standard_normal(const at::Tensor& sample) {
  const auto values = sample.cpu().to(at::kDouble);
  const double n = static_cast<double>(values.numel());
  const double mean = values.mean().item<double>();
  const double variance = values.var().item<double>();  // unbiased
  const double mean_bound = 5.0 / std::sqrt(n);
  const double variance_bound = 5.0 * std::sqrt(2.0 / (n - 1.0));
  std::ostringstream out;
  if (std::abs(mean) > mean_bound) out << "mean " << mean << " is not within " << mean_bound << " of 0; ";
  if (std::abs(variance - 1.0) > variance_bound) {
    out << "variance " << variance << " is not within " << variance_bound << " of 1";
  }
  return out.str();
}

using GeneratorMoments = tdc::DeviceTest;

TEST_P(GeneratorMoments, HundredThousandNormalsHaveMeanAndVarianceWithinFiveStandardErrors) {
  TDC_DEFAULT_GENERATOR_OR_SKIP(generator, device());
  manual_seed(generator, 20261130);
  const auto normals = at::randn({kSamples}, at::TensorOptions().device(device()));
  ASSERT_EQ(normals.device(), device())
      << "randn on " << device() << " gave a tensor on " << normals.device() << ": the backend's random kernels return on the wrong device";
  EXPECT_EQ(moments_off_standard_normal(normals), "") << "randn on " << device();
  // The negative: uniform draws must not pass as normal ones.
  const auto uniforms = at::rand({kSamples}, at::TensorOptions().device(device()));
  EXPECT_NE(moments_off_standard_normal(uniforms), "") << "rand on " << device()
                                                       << " passed as standard normal";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(GeneratorMoments);

}  // namespace
