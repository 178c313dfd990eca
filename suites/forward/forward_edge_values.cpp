// Edge values on the device behave as on the CPU: zero-size and 0-dim
// tensors move and compute; NaN and Inf propagate through Linear to the same
// elements; denormals survive copies exactly. Whether arithmetic keeps
// denormals or flushes them to zero is device policy (GPUs may flush in
// fast-math kernels): reported as the test's `denormal_arithmetic` property
// and printed, not failed.
#include <ATen/ATen.h>

#include <cmath>
#include <iostream>
#include <utility>
#include <vector>

#include "tdc/fixtures.h"
#include "tdc/prerequisite.h"
#include "tdc/patterns.h"
#include "tdc/seed_model.h"
#include "tdc/tolerance.h"

namespace {

// NaN where the reference has NaN, +Inf and -Inf where it has them, and the
// finite elements within tolerance.
::testing::AssertionResult same_non_finite_and_close(const at::Tensor& actual,
                                                     const at::Tensor& expected,
                                                     tdc::Tolerance tolerance) {
  const auto got = actual.detach().to(at::kCPU, at::kDouble);
  const auto want = expected.detach().to(at::kCPU, at::kDouble);
  const std::vector<std::pair<const char*, at::Tensor (*)(const at::Tensor&)>> kinds{
      {"NaN", [](const at::Tensor& t) { return at::isnan(t); }},
      {"+Inf", [](const at::Tensor& t) { return at::isposinf(t); }},
      {"-Inf", [](const at::Tensor& t) { return at::isneginf(t); }}};
  for (const auto& [kind, where] : kinds) {
    if (!at::equal(where(got), where(want))) {
      return ::testing::AssertionFailure()
             << kind << " at elements " << where(got).flatten().nonzero().flatten()
             << " of the result, but at " << where(want).flatten().nonzero().flatten()
             << " on the CPU";
    }
  }
  const auto finite = at::isfinite(want);
  return tdc::all_close(at::where(finite, got, at::zeros_like(got)),
                        at::where(finite, want, at::zeros_like(want)), tolerance);
}

double smallest_subnormal(c10::ScalarType dtype) {
  switch (dtype) {
    case c10::kHalf: return std::ldexp(1.0, -24);
    case c10::kBFloat16: return std::ldexp(1.0, -133);
    case c10::kDouble: return std::ldexp(1.0, -1074);
    default: return std::ldexp(1.0, -149);
  }
}

using ForwardEdgeValues = tdc::DeviceDtypeTest;

TEST_P(ForwardEdgeValues, ZeroSizeZeroDimNonFiniteAndDenormalsLikeCpu) {
  const auto on_cpu = at::TensorOptions().dtype(dtype());
  const auto on_device = on_cpu.device(device());
  auto model = tdc::make_seed_model();
  model->to(dtype());
  const double nan = std::nan("");
  const double inf = INFINITY;
  const auto non_finite_input =
      at::tensor(std::vector<double>{0.5, -0.25, 1.0, nan, 0.5, 0.125, inf, 0.25, -0.5, -0.75,
                                     -inf, 0.5, inf, -inf, 0.0, 0.25, 0.5, -0.125},
                 at::kDouble)
          .reshape({6, 3})
          .to(dtype());
  const auto non_finite_reference = tdc::reference_forward(model, non_finite_input);
  TDC_MOVE_MODULE_OR_FAIL(*model, device());
  at::NoGradGuard no_grad;
  {
    SCOPED_TRACE("zero-size tensors");
    for (const auto& shape : std::vector<std::vector<int64_t>>{{0}, {0, 3}, {3, 0}}) {
      const auto moved = at::empty(shape, on_cpu).to(device());
      EXPECT_EQ(moved.device(), device())
          << "an empty tensor of shape " << at::IntArrayRef(shape) << " moved to " << device() << " landed on " << moved.device();
      EXPECT_EQ(moved.sizes(), at::IntArrayRef(shape))
          << "an empty tensor of shape " << at::IntArrayRef(shape) << " has shape " << moved.sizes() << " on the device: the backend's empty or copy loses zero-size dimensions";
      EXPECT_EQ(moved.to(at::kCPU).sizes(), at::IntArrayRef(shape))
          << "an empty tensor of shape " << at::IntArrayRef(shape) << " came back with shape " << moved.to(at::kCPU).sizes() << ": the copy to the host loses zero-size dimensions";
    }
    const auto output = model->forward(at::empty({0, 3}, on_device));
    EXPECT_EQ(output.sizes(), at::IntArrayRef({0, 2}))
        << "a forward of a zero-row batch gave shape " << output.sizes() << ", not [0, 2]: Linear's kernels mishandle an empty batch";
    EXPECT_EQ(output.device(), device())
        << "a forward of a zero-row batch gave its output on " << output.device() << ", not " << device();
    EXPECT_EQ(output.scalar_type(), dtype())
        << "a forward of a zero-row batch in " << dtype() << " gave " << output.scalar_type() << ": a kernel returns the wrong dtype on an empty batch";
    const auto total = output.sum();
    EXPECT_EQ(total.dim(), 0)
        << "the sum of an empty tensor has " << total.dim() << " dimensions, not 0: the backend's sum returns the wrong shape";
    EXPECT_EQ(total.device(), device())
        << "the sum of an empty tensor is on " << total.device() << ", not " << device() << ": the backend's sum returns on the wrong device";
    EXPECT_EQ(total.to(at::kCPU, at::kDouble).item<double>(), 0.0) << "sum of no elements";
  }
  {
    SCOPED_TRACE("0-dim tensors");
    const auto scalar = at::scalar_tensor(2.5, on_cpu);
    const auto moved = scalar.to(device());
    EXPECT_EQ(moved.dim(), 0)
        << "a 0-dim tensor moved to the device has " << moved.dim() << " dimensions: the copy turns scalars into arrays";
    EXPECT_EQ(moved.device(), device()) << "a 0-dim tensor moved to " << device() << " landed on " << moved.device();
    EXPECT_TRUE(tdc::same_elements(moved, scalar))
        << "a 0-dim tensor holding 2.5 changed on its way to the device: the scalar copy is wrong";
    const auto computed = moved * 3 + 1;
    EXPECT_EQ(computed.dim(), 0)
        << "arithmetic on a 0-dim device tensor gave " << computed.dim() << " dimensions: a kernel broadcasts scalars wrongly";
    EXPECT_EQ(computed.device(), device())
        << "arithmetic on a 0-dim tensor on " << device() << " gave its result on " << computed.device();
    EXPECT_EQ(computed.to(at::kCPU, at::kDouble).item<double>(), 8.5)
        << "2.5 * 3 + 1 on the device is not 8.5: the mul or add kernel is wrong on 0-dim tensors";
  }
  {
    SCOPED_TRACE("NaN and Inf through Linear");
    const auto output = model->forward(non_finite_input.to(device()));
    EXPECT_EQ(output.device(), device())
        << "a forward of NaN and Inf on " << device() << " gave its output on " << output.device();
    EXPECT_TRUE(same_non_finite_and_close(output, non_finite_reference,
                                          tdc::tolerance_for(dtype())))
                                              << "NaN and Inf through Linear differ from the CPU reference: a kernel drops or invents non-finite values";
  }
  {
    SCOPED_TRACE("denormals");
    const auto tiny = smallest_subnormal(dtype());
    const auto values = (at::tensor(std::vector<double>{1.0, 3.0, -1.0, 5.0}, at::kDouble) * tiny).to(dtype());
    ASSERT_TRUE(values.ne(0).all().item<bool>()) << "the test's denormals rounded to zero";
    const auto moved = values.to(device());
    EXPECT_TRUE(tdc::same_elements(moved, values)) << "a copy changed denormal values";
    const auto doubled = (moved * 2).to(at::kCPU);
    const bool kept = tdc::same_elements(doubled, values * 2);
    const bool flushed = !kept && doubled.eq(0).all().item<bool>();
    const char* verdict = kept ? "kept" : flushed ? "flushed to zero" : "changed";
    RecordProperty("denormal_arithmetic", verdict);
    if (!kept) {
      std::cout << "[   NOTE   ] " << device() << " " << tdc::dtype_name(dtype())
                << " arithmetic on denormals: " << verdict << " (the CPU keeps them)\n";
    }
    EXPECT_FALSE(!kept && !flushed) << "denormal arithmetic neither kept nor flushed them: "
                                    << doubled;
  }
}

TDC_INSTANTIATE_DEVICE_DTYPE_TEST_SUITE(ForwardEdgeValues);

}  // namespace
