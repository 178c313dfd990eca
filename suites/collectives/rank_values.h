#pragma once
// What each rank contributes and what a collective must return. Element i of
// rank r's input is distinct per rank and index (a swapped rank or chunk
// differs, as in nccl-tests) and small enough that every sum over up to
// eight ranks is exact in the dtype:
//   period 13: values 1..13+r, sums <= 132 (exact in bfloat16, whose
//     integers are exact to 256);
//   int8 (period 9): values 1..9+r, sums <= 100 < 127.
// A product over more than two ranks of such values leaves every small
// dtype, so PRODUCT has inputs of its own: 2 on one rank per element (the
// rank index mod world), 1 elsewhere; every product is 2, and a rank left
// out or a chunk misplaced makes it 1. An average over three ranks is not
// exact: the reference is rounded to the dtype (rank_report.h).
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

// Rank r's input to a reduction with `op` in a world of `world`: PRODUCT's
// own (above), else contribution().
at::Tensor contribution_for(c10d::ReduceOp::RedOpType op, int r, int world, int64_t n, at::ScalarType dtype);
inline at::Tensor input_for(c10d::ReduceOp::RedOpType op, int r, int world, int64_t n, at::ScalarType dtype,
                            c10::Device device) {
  return contribution_for(op, r, world, n, dtype).to(device, dtype);
}

// The host reference of reducing every rank's contribution with `op`
// (SUM, MAX, MIN, PRODUCT or AVG), as float64.
at::Tensor reduced(c10d::ReduceOp::RedOpType op, int world, int64_t n, at::ScalarType dtype);

// Every rank's contribution, rank 0 first, as one float64 tensor.
at::Tensor gathered(int world, int64_t n, at::ScalarType dtype);

}  // namespace tdc::collectives
