#include "collective_ops.h"

#include <algorithm>
#include <stdexcept>

namespace tdc::bench::collectives {
namespace {

// Rank r's element i: the collectives suite's values (rank_values.h), small
// integers distinct per rank and index (a swapped rank or chunk differs), so
// every sum over the ranks is exact in float32 and the check compares
// exactly. Computed in int32 (i * 7 < 2^31 up to 1 GiB of float32), not
// float64 as the suite does: at 1 GiB that would be 2 GiB per contribution.
at::Tensor values(int r, std::int64_t n) {
  return at::arange(n, at::kInt).mul_(7).add_(r * 3).remainder_(13).add_(1 + r).to(at::kFloat);
}

at::Tensor sum_of_every_rank(std::int64_t n, int world) {
  at::Tensor sum = values(0, n);
  for (int r = 1; r < world; ++r) sum.add_(values(r, n));
  return sum;
}

at::Tensor reference(Op op, std::int64_t n, int rank, int world) {
  const std::int64_t chunk = n / world;
  std::vector<at::Tensor> parts;
  switch (op) {
    case Op::kAllreduce: return sum_of_every_rank(n, world);
    case Op::kBroadcast: return values(0, n);  // root 0
    case Op::kReduceScatter: return sum_of_every_rank(n, world).narrow(0, rank * chunk, chunk);
    case Op::kAllgather:
      for (int r = 0; r < world; ++r) parts.push_back(values(r, chunk));
      return at::cat(parts);
    case Op::kAlltoall:  // chunk `rank` of every rank's input, rank 0's first
      for (int r = 0; r < world; ++r) parts.push_back(values(r, n).narrow(0, rank * chunk, chunk));
      return at::cat(parts);
  }
  throw std::logic_error("collective_ops: no reference for this op");
}

}  // namespace

const std::vector<OpInfo>& all_ops() {
  static const std::vector<OpInfo> ops{
      {Op::kAllreduce, "allreduce", "allreduce_sum", false},
      {Op::kAllgather, "allgather", "allgather_into_tensor", true},
      {Op::kReduceScatter, "reduce_scatter", "reduce_scatter", true},
      {Op::kBroadcast, "broadcast", "broadcast", false},
      {Op::kAlltoall, "alltoall", "alltoall", true},
  };
  return ops;
}

const OpInfo& info(Op op) {
  for (const auto& i : all_ops()) {
    if (i.op == op) return i;
  }
  throw std::logic_error("collective_ops: unknown op");
}

double bus_factor(Op op, int world) {
  const double n = world;
  switch (op) {
    case Op::kAllreduce: return 2 * (n - 1) / n;
    case Op::kAllgather:
    case Op::kReduceScatter:
    case Op::kAlltoall: return (n - 1) / n;
    case Op::kBroadcast: return 1;
  }
  throw std::logic_error("collective_ops: unknown op");
}

std::int64_t elements_for(Op op, std::int64_t bytes, int world) {
  const std::int64_t n = bytes / static_cast<std::int64_t>(sizeof(float));
  if (!info(op).chunked) return std::max<std::int64_t>(n, 1);
  return std::max<std::int64_t>(n / world * world, world);
}

Buffers make_buffers(Op op, std::int64_t elements, int rank, int world, c10::Device device) {
  const auto options = at::TensorOptions().dtype(at::kFloat).device(device);
  Buffers b;
  switch (op) {
    case Op::kAllreduce:
    case Op::kBroadcast:
      b.in = values(rank, elements).to(device);
      b.out = b.in;  // in place
      b.list = {b.in};
      break;
    case Op::kAllgather:
      b.in = values(rank, elements / world).to(device);
      b.out = at::empty({elements}, options);
      break;
    case Op::kReduceScatter:
      b.in = values(rank, elements).to(device);
      b.out = at::empty({elements / world}, options);
      break;
    case Op::kAlltoall:
      b.in = values(rank, elements).to(device);
      b.out = at::empty({elements}, options);
      break;
  }
  return b;
}

c10::intrusive_ptr<compat::C10dWork> issue(compat::C10dBackend& backend, Op op, Buffers& b) {
  switch (op) {
    case Op::kAllreduce: {
      ::c10d::AllreduceOptions o;
      o.reduceOp = ::c10d::ReduceOp(::c10d::ReduceOp::SUM);
      return backend.allreduce(b.list, o);
    }
    case Op::kBroadcast: {
      ::c10d::BroadcastOptions o;
      o.rootRank = 0;
      return backend.broadcast(b.list, o);
    }
    case Op::kAllgather: return backend._allgather_base(b.out, b.in, ::c10d::AllgatherOptions());
    case Op::kReduceScatter: {
      ::c10d::ReduceScatterOptions o;
      o.reduceOp = ::c10d::ReduceOp(::c10d::ReduceOp::SUM);
      return backend._reduce_scatter_base(b.out, b.in, o);
    }
    case Op::kAlltoall: {
      std::vector<std::int64_t> equal_splits;  // empty: one equal chunk per rank
      return backend.alltoall_base(b.out, b.in, equal_splits, equal_splits, ::c10d::AllToAllOptions());
    }
  }
  throw std::logic_error("collective_ops: unknown op");
}

std::int64_t count_wrong(Op op, const Buffers& b, std::int64_t elements, int rank, int world) {
  const at::Tensor got = b.out.to(at::kCPU).reshape({-1});
  const at::Tensor want = reference(op, elements, rank, world);
  if (got.numel() != want.numel()) return want.numel();  // a result of the wrong shape is wrong throughout
  return got.ne(want).sum().item<std::int64_t>();
}

}  // namespace tdc::bench::collectives
