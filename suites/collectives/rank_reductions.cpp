// The reducing collectives of one rank: allreduce with every reduce op the
// backend declares, a coalesced group of allreduces, reduce to every root,
// reduce_scatter into one tensor per rank.
// Each result is compared element by element with the host reference.
#include "rank.h"
#include "rank_faults.h"
#include "rank_report.h"
#include "rank_values.h"

#include <vector>

namespace tdc::collectives {

namespace {

int allreduce_each_op(Rank& self, at::ScalarType dtype, int64_t n) {
  int failures = 0;
  struct Op {
    const char* name;
    c10d::ReduceOp::RedOpType op;
  };
  for (Op op : {Op{"allreduce_sum", c10d::ReduceOp::SUM}, Op{"allreduce_max", c10d::ReduceOp::MAX},
                Op{"allreduce_min", c10d::ReduceOp::MIN}, Op{"allreduce_product", c10d::ReduceOp::PRODUCT},
                Op{"allreduce_avg", c10d::ReduceOp::AVG}}) {
    if (auto why = self.undeclared(op.name, dtype)) {
      failures += skip_undeclared(self, op.name, dtype, n, *why, [&] {
        std::vector<at::Tensor> t{input(self.rank, self.world, 1, dtype, self.device)};
        c10d::AllreduceOptions o;
        o.reduceOp = c10d::ReduceOp(op.op);
        self.pg->allreduce(t, o)->wait();
      });
      continue;
    }
    std::vector<at::Tensor> t{input_for(op.op, self.rank, self.world, n, dtype, self.device)};
    maybe_plant(self, op.name, t[0]);
    c10d::AllreduceOptions o;
    o.reduceOp = c10d::ReduceOp(op.op);
    self.enter(op.name, dtype, n);
    maybe_hang(self);
    self.pg->allreduce(t, o)->wait();
    failures += report(self, op.name, dtype, n, t[0], reduced(op.op, self.world, n, dtype));
  }
  return failures;
}

// A coalesced group of three tensors in one call (allreduce_coalesced):
// tensor k is the contribution over n + k elements from element k on, so
// each has its own pattern and a tensor reduced into another's place
// differs. One RESULT line over the group, tensor 0 first.
int allreduce_coalesced_group(Rank& self, at::ScalarType dtype, int64_t n) {
  constexpr const char* kName = "allreduce_coalesced";
  if (auto why = self.undeclared(kName, dtype)) {
    return skip_undeclared(self, kName, dtype, n, *why, [&] {
      std::vector<at::Tensor> t{input(self.rank, self.world, 1, dtype, self.device),
                                input(self.rank, self.world, 1, dtype, self.device)};
      self.pg->allreduce_coalesced(t)->wait();
    });
  }
  std::vector<at::Tensor> group, want;
  for (int64_t k = 0; k < 3; ++k) {
    group.push_back(contribution(self.rank, self.world, n + k, dtype).narrow(0, k, n).to(self.device, dtype));
    want.push_back(reduced(c10d::ReduceOp::SUM, self.world, n + k, dtype).narrow(0, k, n));
  }
  maybe_plant(self, kName, group[0]);
  self.enter(kName, dtype, n);
  self.pg->allreduce_coalesced(group)->wait();
  std::vector<at::Tensor> host;
  for (const auto& t : group) host.push_back(t.to(at::kCPU));
  return report(self, kName, dtype, n, torch::cat(host), torch::cat(want));
}

// Only the root's result is defined; the other ranks print nothing.
int reduce_to_every_root(Rank& self, at::ScalarType dtype, int64_t n) {
  if (auto why = self.undeclared("reduce", dtype)) {
    return skip_undeclared(self, "reduce", dtype, n, *why, [&] {
      std::vector<at::Tensor> t{input(self.rank, self.world, 1, dtype, self.device)};
      self.pg->reduce(t, c10d::ReduceOptions())->wait();
    });
  }
  int failures = 0;
  for (int root = 0; root < self.world; ++root) {
    const std::string name = "reduce_root" + std::to_string(root);
    std::vector<at::Tensor> t{input(self.rank, self.world, n, dtype, self.device)};
    maybe_plant(self, "reduce", t[0]);
    c10d::ReduceOptions o;
    o.rootRank = root;
    o.reduceOp = c10d::ReduceOp(c10d::ReduceOp::SUM);
    self.enter(name, dtype, n);
    self.pg->reduce(t, o)->wait();
    if (self.rank == root) {
      failures += report(self, name, dtype, n, t[0], reduced(c10d::ReduceOp::SUM, self.world, n, dtype));
    }
  }
  return failures;
}

// Rank r's input has world * n elements; its output is chunk r of the sum.
int reduce_scatter_into_tensor(Rank& self, at::ScalarType dtype, int64_t n) {
  if (auto why = self.undeclared("reduce_scatter", dtype)) {
    return skip_undeclared(self, "reduce_scatter", dtype, n, *why, [&] {
      at::Tensor in = input(self.rank, self.world, self.world, dtype, self.device);
      at::Tensor out = torch::empty({1}, self.options(dtype));
      self.pg->_reduce_scatter_base(out, in, c10d::ReduceScatterOptions())->wait();
    });
  }
  at::Tensor in = input(self.rank, self.world, n * self.world, dtype, self.device);
  maybe_plant(self, "reduce_scatter", in);
  at::Tensor out = torch::empty({n}, self.options(dtype));
  c10d::ReduceScatterOptions o;
  o.reduceOp = c10d::ReduceOp(c10d::ReduceOp::SUM);
  self.enter("reduce_scatter", dtype, n);
  self.pg->_reduce_scatter_base(out, in, o)->wait();
  at::Tensor want = reduced(c10d::ReduceOp::SUM, self.world, n * self.world, dtype).narrow(0, self.rank * n, n);
  return report(self, "reduce_scatter", dtype, n, out, want);
}

}  // namespace

int run_smoke(Rank& self) {
  std::vector<at::Tensor> t{input(self.rank, self.world, 1000, torch::kFloat, self.device)};
  maybe_plant(self, "allreduce_sum", t[0]);
  self.enter("allreduce_sum", torch::kFloat, 1000);
  self.pg->allreduce(t)->wait();
  return report(self, "allreduce_sum", torch::kFloat, 1000, t[0],
                reduced(c10d::ReduceOp::SUM, self.world, 1000, torch::kFloat));
}

int run_reductions(Rank& self, at::ScalarType dtype, int64_t n) {
  return allreduce_each_op(self, dtype, n) + allreduce_coalesced_group(self, dtype, n) +
         reduce_to_every_root(self, dtype, n) + reduce_scatter_into_tensor(self, dtype, n);
}

}  // namespace tdc::collectives
