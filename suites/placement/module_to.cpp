// The seed's model.to(device), on a module that has buffers as well as
// parameters: both must move.
#include <ATen/ATen.h>

#include "tdc/alignment_guard.h"
#include "placement.h"
#include "tdc/prerequisite.h"
#include "tdc/seed_model.h"
#include "tdc/text.h"

namespace {

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

}  // namespace
