// A child forked after the parent used the device (a data loader's worker,
// a forking server) either works, running the seed forward right, or fails
// with an error it can say, as CUDA's "Cannot re-initialize CUDA in forked
// subprocess"; it never hangs or crashes, which would leave the job stuck
// or dead with nothing to diagnose.
#include "tdc/fixtures.h"
#include "tdc/isolated_child.h"
#include "tdc/seed_model.h"
#include "tdc/tolerance.h"

#include <ATen/ATen.h>
#include <c10/core/DeviceGuard.h>

#include <string>

namespace {

using ForkedChild = tdc::DeviceTest;

TEST_P(ForkedChild, ForkedAfterTheParentUsedTheDeviceWorksOrSaysWhy) {
  const auto used = at::ones({16}, at::TensorOptions().device(device()));
  ASSERT_EQ(used.sum().item<float>(), 16.0F) << "the parent's own use of " << device();

  const auto reference = tdc::reference_forward(
      tdc::make_seed_model(), tdc::make_seed_input(at::TensorOptions().dtype(at::kFloat)));
  const auto device_in_child = device();
  const auto outcome = tdc::run_in_child(
      [&](const tdc::ChildReport& report) {
        c10::DeviceGuard guard(device_in_child);
        auto model = tdc::make_seed_model();
        model->to(device_in_child);
        at::NoGradGuard no_grad;
        const auto output = model->forward(tdc::make_seed_input(at::TensorOptions().device(device_in_child)));
        const auto close = tdc::all_close(output, reference, tdc::tolerance_for(at::kFloat));
        report(close ? std::string("right") : std::string("wrong: ") + close.message());
      },
      tdc::backend_timeout_seconds());

  if (!outcome.finished) {
    const bool said_why = outcome.failure.rfind("threw: ", 0) == 0;
    EXPECT_TRUE(said_why) << "a child forked after the parent used " << device() << " "
                          << outcome.failure;
    if (said_why) RecordProperty("forked_child_error", outcome.failure);
    return;
  }
  ASSERT_EQ(outcome.lines.size(), 1U) << "the child finished without reporting its forward";
  EXPECT_EQ(outcome.lines[0], "right") << "the seed forward in a child forked after the parent used "
                                       << device();
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(ForkedChild);

}  // namespace
