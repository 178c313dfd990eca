#pragma once
// Salted inputs whose rows all differ, so that a kernel that mixes up rows,
// or handles only whole blocks of rows, gives a different answer. Multiples of
// 1/8 in [-1, 1]: exact in every checked dtype, so the input itself is the
// same on every device and only the arithmetic differs.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cstdint>

namespace tdc::forward {

inline at::Tensor distinguishing_input(std::int64_t rows, c10::ScalarType dtype) {
  constexpr std::uint64_t kInputSeed = 9;
  auto generator = at::make_generator<at::CPUGeneratorImpl>(kInputSeed + rows);
  return at::randint(-8, 9, {rows, 3}, generator, at::TensorOptions().dtype(at::kDouble))
      .div_(8.0)
      .to(dtype);
}

}  // namespace tdc::forward
