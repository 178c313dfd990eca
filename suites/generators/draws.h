#pragma once
// What the generator checks draw: rand, randn and randint on a device from
// its default generator (the one torch::manual_seed sets), and the
// generator itself, or a skip naming why this LibTorch cannot reach it.
#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tdc::generators {

struct Draw {
  const char* name;  // "rand", "randn", "randint"
  std::function<at::Tensor(const c10::Device&)> draw;
};

// 1000 values each, drawn without an explicit generator.
const std::vector<Draw>& draws();

// torch::manual_seed for one generator: sets its start value under its lock.
void manual_seed(at::Generator& generator, std::uint64_t value);

// Same shape, dtype and every value (compared on the CPU).
bool same_values(const at::Tensor& a, const at::Tensor& b);

// Empty when manual_seed(1234) twice on `generator` repeats `draw` on `device`;
// else why not, and when the draws follow the CPU's generator instead (the
// CPU fallback ran them: probed by giving the CPU generator the same manual_seed, its
// state restored after), what the backend must register.
std::string repeat_problem(at::Generator& generator, const Draw& draw, const c10::Device& device);

}  // namespace tdc::generators

// In a test body: `generator` becomes the device's default generator, or the
// test skips with the reason this LibTorch cannot provide it.
#define TDC_DEFAULT_GENERATOR_OR_SKIP(generator, device)                          \
  at::Generator generator;                                                        \
  {                                                                               \
    std::string tdc_why_not_;                                                     \
    auto tdc_found_ = ::tdc::compat::default_generator((device), &tdc_why_not_);  \
    if (!tdc_found_) GTEST_SKIP() << tdc_why_not_;                                \
    generator = *tdc_found_;                                                      \
  }
