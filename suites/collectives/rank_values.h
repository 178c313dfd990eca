#pragma once
// What each rank contributes and what a collective must return. Element i of
// rank r's input is distinct per rank and index (a swapped rank or chunk
// differs, as in nccl-tests) and small enough that every sum over the world
// is exact in the dtype: values are at most limit / world, where limit is
// the largest integer the dtype holds exactly (int8 127, bfloat16 256,
// float16 2048, ...). The pattern is (7i + 3r) mod P + 1 + (r mod Q), with
// P + Q - 1 <= limit / world, and P = 13 wherever lcm(P, Q) >= world keeps
// every rank distinct (int8 up to 9 ranks, bfloat16 18, float16 39, wider
// dtypes always); smaller periods past that. Ranks repeat another's input
// from 13 ranks in int8 and 22 in bfloat16 (rank_values.cpp picks the
// pattern that keeps the most apart): there a swap of two such ranks is
// invisible; every other fault still shows. From 128 ranks no int8 sum is
// exact at all.
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

// Rank r's n-element input in a world of `world`, as float64 (the host
// reference's dtype).
at::Tensor contribution(int r, int world, int64_t n, at::ScalarType dtype);

// Rank r's n-element input in `dtype` on `device`, ready for the collective.
inline at::Tensor input(int r, int world, int64_t n, at::ScalarType dtype, c10::Device device) {
  return contribution(r, world, n, dtype).to(device, dtype);
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
