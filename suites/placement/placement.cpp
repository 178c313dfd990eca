// Placement.<Case>/<device>: where tensors and modules land, and that
// moving them copies exactly.
#include <ATen/ATen.h>

#include "tdc/alignment_guard.h"
#include "tdc/fixtures.h"
#include "tdc/prerequisite.h"
#include "tdc/seed_model.h"
#include "tdc/text.h"

namespace {

class Placement : public tdc::DeviceTest {};

// The seed's model.to(device), on a module that has buffers as well as
// parameters: both must move.
TEST_P(Placement, ModuleToMovesParametersAndBuffers) {
  auto model = tdc::make_model_with_buffers();
  ASSERT_FALSE(model->buffers().empty());
  // The check every Module::to user points at (tdc/prerequisite.h): when the
  // move throws, say which registration the backend lacks.
  try {
    model->to(device());
  } catch (const c10::Error& error) {
    const auto hint = tdc::missing_registration_hint(error.what_without_backtrace());
    FAIL() << "Module::to(" << device() << ") threw: "
           << tdc::first_line(error.what_without_backtrace())
           << (hint.empty() ? "" : "; " + hint);
  }
  EXPECT_EQ(tdc::module_devices(*model), std::vector<c10::Device>{device()});
  for (const auto& item : model->named_buffers()) {
    EXPECT_EQ(item.value().device(), device()) << "buffer " << item.key();
  }
}

// Tensors created with a device option land on that device, index included.
TEST_P(Placement, FactoryHonoursDeviceOptionIncludingIndex) {
  const auto options = at::TensorOptions().dtype(at::kFloat).device(device());
  const std::vector<std::pair<const char*, at::Tensor>> made{
      {"ones", at::ones({4, 3}, options)},
      {"zeros", at::zeros({4, 3}, options)},
      {"empty", at::empty({4, 3}, options)},
      {"full", at::full({4, 3}, 2.5, options)},
  };
  for (const auto& [factory, tensor] : made) {
    EXPECT_EQ(tensor.device(), device()) << factory;
    EXPECT_EQ(tensor.sizes(), at::IntArrayRef({4, 3})) << factory;
  }
  // Values as well as placement: a factory that lands right but fills wrong
  // is caught here.
  EXPECT_TRUE(at::equal(made[0].second.cpu(), at::ones({4, 3}))) << "ones";
  EXPECT_TRUE(at::equal(made[3].second.cpu(), at::full({4, 3}, 2.5))) << "full";
}

// A device object alone moves nothing, and .to() copies: its source stays
// where it was, unchanged.
TEST_P(Placement, ToLeavesSourceWhereItWas) {
  const auto source = at::arange(12, at::kFloat).reshape({4, 3});
  const auto snapshot = source.clone();

  const c10::Device target = device();  // naming a device allocates nothing
  EXPECT_TRUE(source.device().is_cpu());

  const auto moved = source.to(target);
  EXPECT_EQ(moved.device(), target);
  EXPECT_TRUE(source.device().is_cpu()) << "to() moved its source";
  EXPECT_TRUE(at::equal(source, snapshot)) << "to() changed its source";
  EXPECT_TRUE(at::equal(moved.to(at::kCPU), snapshot)) << "the copy differs from its source";
}

// Readiness (level 1): 16 MiB travel to the device and back bit for bit. Large
// enough to cross the small-copy paths of a driver (staging buffers, chunked
// DMA), small enough for a health check's time budget.
constexpr int64_t kElements = 16 * 1024 * 1024 / sizeof(int32_t);

TEST_P(Placement, RoundTrip16MiBIsExact) {
  // Distinct values everywhere, so a dropped, repeated or shifted chunk shows.
  const auto source = at::arange(kElements, at::kInt);
  ASSERT_EQ(source.nbytes(), 16u * 1024 * 1024);

  const auto on_device = source.to(device());
  ASSERT_EQ(on_device.device(), device());
  const auto back = on_device.to(at::kCPU);

  const auto differing = back.ne(source).nonzero();
  ASSERT_EQ(differing.size(0), 0)
      << differing.size(0) << " of " << kElements << " int32 values changed on the round trip via "
      << device() << "; first at element " << differing[0].item<int64_t>();
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(Placement);

}  // namespace
