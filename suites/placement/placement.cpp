// Placement.<Case>/<device>: where tensors and modules land, and that
// moving them copies exactly.
#include <ATen/ATen.h>

#include "tdc/alignment_guard.h"
#include "tdc/copy_steps.h"
#include "tdc/fixtures.h"
#include "tdc/result_journal.h"
#include "tdc/prerequisite.h"
#include "tdc/seed_model.h"
#include "tdc/text.h"

namespace {

class Placement : public tdc::DeviceTest {};

// The seed's model.to(device), on a module that has buffers as well as
// parameters: both must move.
TEST_P(Placement, ModuleToMovesParametersAndBuffers) {
  auto model = tdc::make_model_with_buffers();
  ASSERT_FALSE(model->buffers().empty())
      << "the model with buffers has no buffers: the fixture is broken, not the backend";
  // The check every Module::to user points at (tdc/prerequisite.h): when the
  // move throws, say which registration the backend lacks.
  tdc::journal_step("Module::to(" + device().str() + ")");
  try {
    model->to(device());
  } catch (const c10::Error& error) {
    const auto hint = tdc::missing_registration_hint(error.what_without_backtrace());
    FAIL() << "Module::to(" << device() << ") threw: "
           << tdc::first_line(error.what_without_backtrace())
           << (hint.empty() ? "" : "; " + hint);
  }
  EXPECT_EQ(tdc::module_devices(*model), std::vector<c10::Device>{device()})
      << "after Module::to(" << device() << "), the model's parameters and buffers are not all on it: Module::to leaves tensors behind";
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
  tdc::journal_copy(made[0].second, at::kCPU, "the factories' values");
  EXPECT_TRUE(at::equal(made[0].second.cpu(), at::ones({4, 3}))) << "ones";
  EXPECT_TRUE(at::equal(made[3].second.cpu(), at::full({4, 3}, 2.5))) << "full";
}

// A device object alone moves nothing, and .to() copies: its source stays
// where it was, unchanged.
TEST_P(Placement, ToLeavesSourceWhereItWas) {
  const auto source = at::arange(12, at::kFloat).reshape({4, 3});
  const auto snapshot = source.clone();

  const c10::Device target = device();  // naming a device allocates nothing
  EXPECT_TRUE(source.device().is_cpu())
      << "a tensor made on the host is on " << source.device() << ": the backend took over the host's default device";

  const auto moved = tdc::journal_copy(source, target).to(target);
  EXPECT_EQ(moved.device(), target)
      << "to(" << target << ") gave a tensor on " << moved.device() << ": the backend's copy ignores its target";
  EXPECT_TRUE(source.device().is_cpu()) << "to() moved its source";
  EXPECT_TRUE(at::equal(source, snapshot)) << "to() changed its source";
  EXPECT_TRUE(at::equal(tdc::journal_copy(moved, at::kCPU).to(at::kCPU), snapshot))
      << "the copy differs from its source";
}

// Readiness (level 1): 16 MiB travel to the device and back bit for bit. Large
// enough to cross the small-copy paths of a driver (staging buffers, chunked
// DMA), small enough for a health check's time budget.
constexpr int64_t kElements = 16 * 1024 * 1024 / sizeof(int32_t);

// Which leg of a failed round trip changed the data. The device -> host leg
// alone: a constant written on the device by a kernel (random_ over [v, v+1),
// which has one value), never by a host -> device copy, read back. When it
// reads back exact, the host -> device leg is what changed the round trip.
// The comparison is made on the host: on a backend whose operators run on the
// host and copy their results to the device (the loopback's CPU fallback), a
// comparison on the device would go through the broken copy itself.
std::string broken_leg(const c10::Device& device) {
  constexpr int kFill = 0x2d5a3c1;  // not 0, not a pattern a stuck copy leaves
  try {
    auto filled = at::empty({kElements}, at::TensorOptions().dtype(at::kInt).device(device));
    filled.random_(kFill, kFill + 1);
    tdc::journal_copy(filled, at::kCPU, "a fill made on the device");
    const auto read = filled.to(at::kCPU);
    const auto wrong = read.ne(kFill).sum().item<int64_t>();
    if (wrong == 0) {
      return "the device -> host leg alone is exact (a fill made on " + device.str() +
             " read back), so the host -> device copy changed the data";
    }
    return "the device -> host leg alone changed " + std::to_string(wrong) + " of " +
           std::to_string(kElements) + " values (a fill made on " + device.str() +
           " read back): the device -> host copy is broken (the host -> device one may be too)";
  } catch (const c10::Error& error) {
    return "the legs could not be told apart: a fill on " + device.str() +
           " failed: " + tdc::first_line(error.what_without_backtrace());
  }
}

TEST_P(Placement, RoundTrip16MiBIsExact) {
  // Distinct values everywhere, so a dropped, repeated or shifted chunk shows.
  const auto source = at::arange(kElements, at::kInt);
  ASSERT_EQ(source.nbytes(), 16u * 1024 * 1024)
      << "16 MiB of int32 is " << source.nbytes() << " bytes: the check's own arithmetic is wrong, not the backend";

  const auto on_device = tdc::journal_copy(source, device()).to(device());
  ASSERT_EQ(on_device.device(), device())
      << "16 MiB moved to " << device() << " landed on " << on_device.device() << ": the backend's copy ignores its target";
  const auto back = tdc::journal_copy(on_device, at::kCPU).to(at::kCPU);

  const auto differing = back.ne(source).nonzero();
  if (differing.size(0) == 0) return;
  FAIL() << differing.size(0) << " of " << kElements << " int32 values changed on the round trip cpu -> "
         << device() << " -> cpu; first at element " << differing[0].item<int64_t>() << "; "
         << broken_leg(device());
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(Placement);

}  // namespace
