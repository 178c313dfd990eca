// The seed model saved from the device loads onto the device and onto the CPU
// with its parameters exact, and its forward pass there matches the float64
// reference of the model that was saved. The archive route is the module API
// (torch::save(model) / torch::load(model, stream, device)); the pickle
// route carries the parameters, as a C++ user of torch::pickle_save would.
#include "round_trip.h"

#include "tdc/compat/serialization.h"
#include "tdc/fixtures.h"
#include "tdc/patterns.h"
#include "tdc/prerequisite.h"
#include "tdc/seed_model.h"
#include "tdc/tolerance.h"

#include <ATen/ATen.h>
#include <torch/serialize.h>

#include <sstream>

namespace {

using tdc::serialization::Route;
using tdc::serialization::route_name;

// A Linear(3, 2) whose parameters are zero, so nothing passes by coincidence.
torch::nn::Linear blank_model() {
  torch::nn::Linear model(3, 2);
  at::NoGradGuard no_grad;
  for (auto& p : model->parameters()) p.zero_();
  return model;
}

torch::nn::Linear load_saved(Route route, torch::nn::Linear& saved, const c10::Device& target) {
  auto loaded = blank_model();
  if (route == Route::kArchive) {
    std::stringstream stream;
    torch::save(saved, stream);
    torch::load(loaded, stream, target);
    return loaded;
  }
  const auto params = tdc::serialization::round_trip(route, saved->parameters(), target);
  loaded->to(target);
  at::NoGradGuard no_grad;
  loaded->weight.copy_(params.at(0));
  loaded->bias.copy_(params.at(1));
  return loaded;
}

void expect_loads_onto(torch::nn::Linear& saved, const torch::nn::Linear& original,
                       const c10::Device& target) {
  for (const auto route : tdc::serialization::kRoutes) {
    SCOPED_TRACE(route_name(route) + " path, seed model loaded onto " + target.str());
    torch::nn::Linear loaded{nullptr};
    try {
      loaded = load_saved(route, saved, target);
    } catch (const c10::Error& e) {
      ADD_FAILURE() << route_name(route) << " path threw: " << e.what_without_backtrace();
      continue;
    }
    for (const auto& item : loaded->named_parameters()) {
      const auto& name = item.key();
      EXPECT_EQ(item.value().device(), target) << route_name(route) << " path: " << name;
      EXPECT_TRUE(tdc::same_elements(item.value().detach().cpu(),
                                     original->named_parameters()[name].detach()))
          << route_name(route) << " path: " << name;
    }
    at::NoGradGuard no_grad;
    const auto input = tdc::make_seed_input(at::TensorOptions().device(target));
    const auto output = loaded->forward(input);
    EXPECT_EQ(output.device(), target) << route_name(route) << " path: forward output";
    EXPECT_TRUE(tdc::all_close(output, tdc::reference_forward(original, input),
                               tdc::tolerance_for(at::kFloat)))
        << route_name(route) << " path: forward of the loaded model";
  }
}

using SerializationSeedModel = tdc::DeviceTest;

TEST_P(SerializationSeedModel, LoadsExactOntoTheSameDeviceAndTheCpu) {
  if (const auto why = tdc::compat::serialization_unsupported(device())) GTEST_SKIP() << *why;
  const auto original = tdc::make_seed_model();
  auto saved = tdc::make_seed_model();
  TDC_MOVE_MODULE_OR_FAIL(*saved, device());
  expect_loads_onto(saved, original, device());
  expect_loads_onto(saved, original, c10::Device(c10::DeviceType::CPU));
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(SerializationSeedModel);

}  // namespace
