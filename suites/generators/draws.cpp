#include "draws.h"

#include <ATen/ATen.h>

#include <mutex>

namespace tdc::generators {

const std::vector<Draw>& draws() {
  static const std::vector<Draw> all = {
      {"rand", [](const c10::Device& d) { return at::rand({1000}, at::TensorOptions().device(d)); }},
      {"randn",
       [](const c10::Device& d) { return at::randn({1000}, at::TensorOptions().device(d)); }},
      {"randint", [](const c10::Device& d) {
         return at::randint(-1000000, 1000000, {1000}, at::TensorOptions().device(d).dtype(at::kLong));
       }}};
  return all;
}

void seed(at::Generator& generator, std::uint64_t value) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_current_seed(value);
}

bool same_values(const at::Tensor& a, const at::Tensor& b) { return at::equal(a.cpu(), b.cpu()); }

}  // namespace tdc::generators
