#pragma once
// What each rank contributes and what a collective must return. Element i of
// rank r's input is distinct per rank and index (a swapped rank or chunk
// differs, as in nccl-tests) and small enough that every result over two
// ranks is exact in the dtype, so the check compares exactly:
//   period 13: values 1..14, products <= 182 (exact in bfloat16, whose
//     integers are exact to 256; float16 to 2048), sums <= 27, averages k/2;
//   int8 (period 9): values 1..10, products <= 90 < 127.
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace tdc::collectives {

// Rank r's n-element input as float64 (the host reference's dtype).
at::Tensor contribution(int r, int64_t n, at::ScalarType dtype);

// Rank r's n-element input in `dtype` on `device`, ready for the collective.
inline at::Tensor input(int r, int64_t n, at::ScalarType dtype, c10::Device device) {
  return contribution(r, n, dtype).to(device, dtype);
}

// The host reference of reducing every rank's contribution with `op`
// (SUM, MAX, MIN, PRODUCT or AVG), as float64.
at::Tensor reduced(c10d::ReduceOp::RedOpType op, int world, int64_t n, at::ScalarType dtype);

// Every rank's contribution, rank 0 first, as one float64 tensor.
at::Tensor gathered(int world, int64_t n, at::ScalarType dtype);

}  // namespace tdc::collectives
