#pragma once
// The collectives tdc_bench_collectives times, as nccl-tests defines them:
// the size of one call (the bytes its name and algbw count: the tensor for
// allreduce and broadcast, the whole gathered output for allgather, the whole
// input for reduce_scatter, a rank's whole buffer for alltoall), busbw's
// factor, one rank's buffers, and the host reference a rank's result is
// checked against element by element (nccl-tests' #wrong). float32 only.
#include "tdc/compat/c10d.h"

#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tdc::bench::collectives {

enum class Op { kAllreduce, kAllgather, kReduceScatter, kBroadcast, kAlltoall };

struct OpInfo {
  Op op;
  const char* name;        // "allreduce": the benchmark name's part and thresholds.json's pattern
  const char* capability;  // what backends.h's Undeclared is asked: the suite's RESULT name
  bool chunked;            // the size is split into one equal chunk per rank
};

// Every op, in the order they are registered.
const std::vector<OpInfo>& all_ops();
const OpInfo& info(Op op);

// nccl-tests' busbw factor for `world` ranks: allreduce 2(n-1)/n;
// allgather, reduce_scatter, alltoall (n-1)/n; broadcast 1.
double bus_factor(Op op, int world);

// float32 elements of one call for a nominal size of `bytes`: bytes / 4,
// for a chunked op rounded down to a multiple of `world` (at least one
// element per rank), as nccl-tests rounds its counts.
std::int64_t elements_for(Op op, std::int64_t bytes, int world);

// One rank's tensors for one op and size; `list` is what the in-place
// collectives (allreduce, broadcast) take, kept alive with the call.
struct Buffers {
  at::Tensor in, out;
  std::vector<at::Tensor> list;
};

// Fresh buffers on `device` holding rank `rank`'s input.
Buffers make_buffers(Op op, std::int64_t elements, int rank, int world, c10::Device device);

// Issues one call; the caller waits on the work.
c10::intrusive_ptr<compat::C10dWork> issue(compat::C10dBackend& backend, Op op, Buffers& buffers);

// How many elements of rank `rank`'s result differ from the host reference.
std::int64_t count_wrong(Op op, const Buffers& buffers, std::int64_t elements, int rank, int world);

}  // namespace tdc::bench::collectives
