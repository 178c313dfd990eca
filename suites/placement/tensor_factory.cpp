// Tensors created with a device option land on that device, index included.
#include <ATen/ATen.h>

#include "placement.h"

namespace {

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

}  // namespace
