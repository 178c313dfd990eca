#include "draws.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <mutex>
#include <string>

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

void manual_seed(at::Generator& generator, std::uint64_t value) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_current_seed(value);
}

bool same_values(const at::Tensor& a, const at::Tensor& b) { return at::equal(a.cpu(), b.cpu()); }

namespace {

// Runs `body` with the CPU default generator at manual_seed(`value`), then
// puts its state back: a batch runs many checks in one process, and the
// probe must not move the CPU sequence any other check sees.
template <typename Body>
void with_cpu_manual_seed(std::uint64_t value, Body body) {
  auto cpu = at::detail::getDefaultCPUGenerator();
  at::Tensor saved;
  {
    std::lock_guard<std::mutex> lock(cpu.mutex());
    saved = cpu.get_state();
  }
  manual_seed(cpu, value);
  body();
  std::lock_guard<std::mutex> lock(cpu.mutex());
  cpu.set_state(saved);
}

}  // namespace

std::string repeat_problem(at::Generator& generator, const Draw& draw, const c10::Device& device) {
  manual_seed(generator, 1234);
  const auto first = draw.draw(device);
  manual_seed(generator, 1234);
  if (same_values(first, draw.draw(device))) return "";
  std::string problem = std::string(draw.name) + ": manual_seed(1234) twice gave two sequences";
  at::Tensor a, b;
  with_cpu_manual_seed(555, [&] {
    manual_seed(generator, 1234);
    a = draw.draw(device);
  });
  with_cpu_manual_seed(555, [&] {
    manual_seed(generator, 1234);
    b = draw.draw(device);
  });
  if (same_values(a, b)) {
    problem += "; the draws follow the CPU generator (the CPU fallback ran them): register uniform_, normal_ "
               "and random_ for PrivateUse1 using the device's generator (docs/backends.md, \"Random numbers\")";
  }
  return problem;
}

}  // namespace tdc::generators
