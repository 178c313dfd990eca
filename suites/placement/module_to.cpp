// The seed's model.to(device), on a module that has buffers as well as
// parameters: both must move.
#include <ATen/ATen.h>

#include "tdc/alignment_guard.h"
#include "placement.h"
#include "tdc/seed_model.h"

namespace {

TEST_P(Placement, ModuleToMovesParametersAndBuffers) {
  auto model = tdc::make_model_with_buffers();
  ASSERT_FALSE(model->buffers().empty());
  model->to(device());
  EXPECT_EQ(tdc::module_devices(*model), std::vector<c10::Device>{device()});
  for (const auto& item : model->named_buffers()) {
    EXPECT_EQ(item.value().device(), device()) << "buffer " << item.key();
  }
}

}  // namespace
