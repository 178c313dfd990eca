#pragma once
// The two ways LibTorch's C++ API writes tensors out and reads them back:
// the archive (torch::save / torch::load, a TorchScript zip whose loader can
// place the tensors on a device) and the pickle (torch::pickle_save /
// torch::pickle_load, the format torch.save uses, which restores each tensor
// on the device it was saved from). Checks run both and say which one failed.
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <string>
#include <vector>

namespace tdc::serialization {

enum class Route { kArchive, kPickle };

inline constexpr Route kRoutes[] = {Route::kArchive, Route::kPickle};

// "torch::save/torch::load" or "torch::pickle_save/torch::pickle_load".
std::string route_name(Route route);

// Writes `tensors` out and reads them back. The archive route loads them onto
// `target`; the pickle route restores them where they were saved and moves
// them to `target` afterwards, as a user of torch::pickle_load must.
std::vector<at::Tensor> round_trip(Route route, const std::vector<at::Tensor>& tensors,
                                   const c10::Device& target);

// What is saved: salted float32, float64, int64 and bool tensors on
// `device`, and a float32 view that starts 5 elements into its storage (the
// loader must honour the storage offset).
std::vector<at::Tensor> sample_tensors(const c10::Device& device);

// In a test: sample_tensors(saved_on) through both routes onto `target`; every
// loaded tensor is on `target` and equal element for element to what was
// saved. Failures name the route.
void expect_round_trip_exact(const c10::Device& saved_on, const c10::Device& target);

}  // namespace tdc::serialization
