// A training-mode forward pass updates module buffers (BatchNorm's running
// statistics) on the device, as it would on the CPU. A backend that computes
// the right output but drops the buffer update passes every inference check;
// this one catches it.
#include <ATen/ATen.h>

#include "tdc/alignment_guard.h"
#include "tdc/fixtures.h"
#include "tdc/prerequisite.h"
#include "tdc/seed_model.h"
#include "tdc/tolerance.h"

namespace {

using ForwardTraining = tdc::DeviceTest;

TEST_P(ForwardTraining, UpdatesBufferStatisticsLikeCpu) {
  auto on_cpu = tdc::make_model_with_buffers();
  auto on_device = tdc::make_model_with_buffers();
  TDC_MOVE_MODULE_OR_FAIL(*on_device, device());
  on_cpu->train();
  on_device->train();
  const auto input = at::arange(12, at::kFloat).reshape({4, 3}).div_(7.0);

  const auto expected = on_cpu->forward(input);
  const auto output = on_device->forward(input.to(device()));

  EXPECT_EQ(output.device(), device())
      << "a forward in training mode on " << device() << " gave its output on " << output.device();
  EXPECT_TRUE(tdc::all_close(output, expected, tdc::tolerance_for(at::kFloat))) << "output";
  const auto cpu_buffers = on_cpu->named_buffers();
  const auto initial = tdc::make_model_with_buffers()->named_buffers();
  for (const auto& buffer : on_device->named_buffers()) {
    EXPECT_EQ(buffer.value().device(), device()) << buffer.key();
    const auto& want = cpu_buffers[buffer.key()];
    const auto close = tdc::all_close(buffer.value(), want, tdc::tolerance_for(at::kFloat));
    if (close) continue;
    // A buffer the step moved on the CPU but not on the device was never
    // written back: name the cause, not just the numbers.
    const auto& start = initial[buffer.key()];
    const bool untouched = at::equal(buffer.value().cpu(), start) && !at::equal(want, start);
    ADD_FAILURE() << buffer.key() << " after one training step: " << close.message()
                  << (untouched ? "; it is still at its initial value, so the update never reached the device: "
                                  "the CPU fallback does not write back arguments the schema does not mark as "
                                  "written, so native_batch_norm needs a kernel of its own that updates "
                                  "running_mean and running_var (docs/backends.md, \"Kernels, and what the CPU "
                                  "fallback does not write back\")"
                                : "");
  }
  EXPECT_NO_THROW(tdc::check_device_alignment(*on_device, {}, {output}, device()))
      << "after a training-mode forward, the model and its output are not all on " << device() << ": a kernel or Module::to leaves tensors behind";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(ForwardTraining);

}  // namespace
