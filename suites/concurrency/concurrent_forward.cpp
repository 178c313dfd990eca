// Eight threads, each making one index of the device's type current
// (round-robin over the indices, so two threads share each index), run the
// seed forward 200 times each at once: every output is right and on the
// thread's device, and the thread's current device stays its own throughout
// (PyTorch guard.md: the current device belongs to the thread).
#include "thread_problems.h"

#include "tdc/discovery.h"
#include "tdc/fixtures.h"
#include "tdc/prerequisite.h"
#include "tdc/seed_model.h"
#include "tdc/tolerance.h"

#include <ATen/ATen.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <array>
#include <string>
#include <vector>

namespace {

constexpr int kForwardThreads = 8;
constexpr int kForwards = 200;
// Inputs ones(4, 3) * k, k = 1..4, so that a result swapped between
// iterations or threads is a wrong value, not an equal one.
constexpr int kScales = 4;

// Round-robin over every index of the type: each instance claims them all.
class ConcurrentForward : public tdc::DeviceTest, public tdc::UsesEveryIndex {};
using tdc::concurrency::ThreadProblems;

TEST_P(ConcurrentForward, EightThreadsRoundRobinOverIndicesRunTheSeedForward) {
  const auto type = device().type();
  const int indices = device().is_cpu() ? 1 : tdc::host_devices().count(type);
  ASSERT_GE(indices, 1) << "discovery lists no " << c10::DeviceTypeName(type, true) << " device";

  const auto reference_model = tdc::make_seed_model();
  std::array<at::Tensor, kScales> inputs, references;
  for (int k = 0; k < kScales; ++k) {
    inputs[k] = tdc::make_seed_input(at::TensorOptions().dtype(at::kFloat)) * (k + 1);
    references[k] = tdc::reference_forward(reference_model, inputs[k]);
  }
  // One model per index, moved before the threads start: forward only reads it.
  std::vector<torch::nn::Linear> models;
  std::vector<c10::Device> devices;
  for (int i = 0; i < indices; ++i) {
    devices.push_back(device().is_cpu() ? device() : c10::Device(type, static_cast<c10::DeviceIndex>(i)));
    models.push_back(tdc::make_seed_model());
    TDC_MOVE_MODULE_OR_FAIL(*models.back(), devices.back());
  }

  ThreadProblems problems;
  tdc::concurrency::run_threads(kForwardThreads, problems, [&](int thread) {
    const auto mine = devices[thread % indices];
    auto model = models[thread % indices];  // a holder: shares the module
    const auto* guard_impl = c10::impl::getDeviceGuardImpl(type);
    c10::DeviceGuard guard(mine);
    at::NoGradGuard no_grad;
    for (int i = 0; i < kForwards; ++i) {
      const int k = (thread + i) % kScales;
      const auto output = model->forward(inputs[k].to(mine));
      const auto current = guard_impl->getDevice();
      if (!mine.is_cpu() && current != mine) {
        problems.add(thread, "forward " + std::to_string(i) + ": the current device is " + current.str() +
                                 ", this thread made " + mine.str() + " current");
      }
      if (output.device() != mine) {
        problems.add(thread, "forward " + std::to_string(i) + ": output on " + output.device().str() +
                                 ", expected " + mine.str());
        continue;
      }
      const auto close = tdc::all_close(output, references[k], tdc::tolerance_for(at::kFloat));
      if (!close) problems.add(thread, "forward " + std::to_string(i) + " on " + mine.str() + ": " + close.message());
    }
  });
  EXPECT_TRUE(problems.none())
      << "forwards on several threads at once went wrong: the device, its guard or its kernels are not thread-safe";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(ConcurrentForward);

}  // namespace
