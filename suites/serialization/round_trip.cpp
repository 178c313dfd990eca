#include "round_trip.h"

#include "tdc/patterns.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <ATen/core/List.h>
#include <torch/serialize.h>

#include <sstream>

namespace tdc::serialization {

std::string route_name(Route route) {
  return route == Route::kArchive ? "torch::save/torch::load"
                                  : "torch::pickle_save/torch::pickle_load";
}

std::vector<at::Tensor> round_trip(Route route, const std::vector<at::Tensor>& tensors,
                                   const c10::Device& target) {
  if (route == Route::kArchive) {
    std::stringstream stream;
    torch::save(tensors, stream);
    std::vector<at::Tensor> loaded;
    torch::load(loaded, stream, target);
    return loaded;
  }
  c10::List<at::Tensor> list;
  for (const auto& t : tensors) list.push_back(t);
  const auto bytes = torch::pickle_save(list);
  std::vector<at::Tensor> loaded;
  for (const at::Tensor& t : torch::pickle_load(bytes).toTensorList()) {
    // Restored where it was saved; checked before it is moved on.
    TORCH_CHECK(t.device() == tensors[loaded.size()].device(), route_name(route),
                " restored a tensor saved from ", tensors[loaded.size()].device(), " on ",
                t.device());
    loaded.push_back(t.to(target));
  }
  return loaded;
}

std::vector<at::Tensor> sample_tensors(const c10::Device& device) {
  const auto on_device = [&](at::IntArrayRef sizes, c10::ScalarType dtype, std::uint64_t salt) {
    return salted_pattern(sizes, dtype, salt).to(device);
  };
  const auto backing = on_device({64}, at::kFloat, 5);
  return {on_device({33, 17}, at::kFloat, 1), on_device({7, 3}, at::kDouble, 2),
          on_device({129}, at::kLong, 3), on_device({4, 4}, at::kBool, 4),
          backing.narrow(0, 5, 40).view({8, 5})};
}

void expect_round_trip_exact(const c10::Device& saved_on, const c10::Device& target) {
  const auto saved = sample_tensors(saved_on);
  for (const auto route : kRoutes) {
    SCOPED_TRACE(route_name(route) + " path, saved on " + saved_on.str() + ", loaded onto " +
                 target.str());
    std::vector<at::Tensor> loaded;
    try {
      loaded = round_trip(route, saved, target);
    } catch (const c10::Error& e) {
      ADD_FAILURE() << route_name(route) << " path threw: " << e.what_without_backtrace();
      continue;
    }
    ASSERT_EQ(loaded.size(), saved.size()) << route_name(route) << " path";
    for (size_t i = 0; i < saved.size(); ++i) {
      EXPECT_EQ(loaded[i].device(), target)
          << route_name(route) << " path: tensor " << i << " is not on the device asked for";
      EXPECT_TRUE(tdc::same_elements(loaded[i].cpu(), saved[i].cpu()))
          << route_name(route) << " path: tensor " << i << " (" << saved[i].scalar_type() << ")";
    }
  }
}

}  // namespace tdc::serialization
