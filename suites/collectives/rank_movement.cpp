// The collectives of one rank that move data without reducing it: broadcast
// from every root, allgather (a list and into one tensor), alltoall,
// send/recv between every ordered pair. Each result is compared
// element by element with the host reference.
#include "rank.h"
#include "rank_faults.h"
#include "rank_report.h"
#include "rank_values.h"

#include <cstdio>
#include <functional>
#include <vector>

namespace tdc::collectives {

namespace {

// False when the backend does not declare `name` for `dtype` (its SKIP line
// at the first size; `attempt` runs the collective once where the rank
// proves its declarations, and a declaration proved wrong adds a failure).
bool declared(Rank& self, const char* name, at::ScalarType dtype, int64_t n, int& failures,
              const std::function<void()>& attempt) {
  auto why = self.undeclared(name, dtype);
  if (why) failures += skip_undeclared(self, name, dtype, n, *why, attempt);
  return !why;
}

int broadcast_from_every_root(Rank& self, at::ScalarType dtype, int64_t n) {
  int failures = 0;
  if (!declared(self, "broadcast", dtype, n, failures, [&] {
        std::vector<at::Tensor> t{input(self.rank, self.world, 1, dtype, self.device)};
        self.pg->broadcast(t, c10d::BroadcastOptions())->wait();
      })) {
    return failures;
  }
  for (int root = 0; root < self.world; ++root) {
    const std::string name = "broadcast_root" + std::to_string(root);
    std::vector<at::Tensor> t{input(self.rank, self.world, n, dtype, self.device)};
    maybe_plant(self, "broadcast", t[0]);
    c10d::BroadcastOptions o;
    o.rootRank = root;
    self.enter(name, dtype, n);
    self.pg->broadcast(t, o)->wait();
    failures += report(self, name, dtype, n, t[0], contribution(root, self.world, n, dtype));
  }
  return failures;
}

int allgather_list(Rank& self, at::ScalarType dtype, int64_t n) {
  int failures = 0;
  if (!declared(self, "allgather", dtype, n, failures, [&] {
        std::vector<at::Tensor> in{input(self.rank, self.world, 1, dtype, self.device)};
        std::vector<std::vector<at::Tensor>> out(1);
        for (int r = 0; r < self.world; ++r) out[0].push_back(torch::empty({1}, self.options(dtype)));
        self.pg->allgather(out, in)->wait();
      })) {
    return failures;
  }
  std::vector<at::Tensor> in{input(self.rank, self.world, n, dtype, self.device)};
  maybe_plant(self, "allgather", in[0]);
  std::vector<std::vector<at::Tensor>> out(1);
  for (int r = 0; r < self.world; ++r) out[0].push_back(torch::empty({n}, self.options(dtype)));
  self.enter("allgather", dtype, n);
  self.pg->allgather(out, in)->wait();
  return report(self, "allgather", dtype, n, torch::cat(out[0]), gathered(self.world, n, dtype));
}

// allgather_into_tensor (_allgather_base): one world * n output tensor.
int allgather_into_tensor(Rank& self, at::ScalarType dtype, int64_t n) {
  int failures = 0;
  if (!declared(self, "allgather_into_tensor", dtype, n, failures, [&] {
        at::Tensor in = input(self.rank, self.world, 1, dtype, self.device);
        at::Tensor out = torch::empty({self.world}, self.options(dtype));
        self.pg->_allgather_base(out, in, c10d::AllgatherOptions())->wait();
      })) {
    return failures;
  }
  at::Tensor in = input(self.rank, self.world, n, dtype, self.device);
  maybe_plant(self, "allgather_into_tensor", in);
  at::Tensor out = torch::empty({n * self.world}, self.options(dtype));
  self.enter("allgather_into_tensor", dtype, n);
  self.pg->_allgather_base(out, in, c10d::AllgatherOptions())->wait();
  return report(self, "allgather_into_tensor", dtype, n, out, gathered(self.world, n, dtype));
}

// alltoall_base: rank r's chunk j goes to rank j; n elements per chunk.
int alltoall(Rank& self, at::ScalarType dtype, int64_t n) {
  int failures = 0;
  if (!declared(self, "alltoall", dtype, n, failures, [&] {
        at::Tensor in = input(self.rank, self.world, self.world, dtype, self.device);
        at::Tensor out = torch::empty({self.world}, self.options(dtype));
        std::vector<int64_t> split;
        self.pg->alltoall_base(out, in, split, split, c10d::AllToAllOptions())->wait();
      })) {
    return failures;
  }
  at::Tensor in = input(self.rank, self.world, n * self.world, dtype, self.device);
  at::Tensor out = torch::empty({n * self.world}, self.options(dtype));
  std::vector<int64_t> split;
  self.enter("alltoall", dtype, n);
  self.pg->alltoall_base(out, in, split, split, c10d::AllToAllOptions())->wait();
  std::vector<at::Tensor> want;
  for (int r = 0; r < self.world; ++r) {
    want.push_back(contribution(r, self.world, n * self.world, dtype).narrow(0, self.rank * n, n));
  }
  return report(self, "alltoall", dtype, n, out, torch::cat(want));
}

int sendrecv_every_pair(Rank& self, at::ScalarType dtype, int64_t n) {
  int failures = 0;
  // A missing send/recv is not attempted (a lone send may wait for its peer): no proof.
  if (!declared(self, "sendrecv", dtype, n, failures, {})) {
    return failures;
  }
  for (int src = 0; src < self.world; ++src) {
    for (int dst = 0; dst < self.world; ++dst) {
      if (src == dst) continue;
      const std::string name = "sendrecv_" + std::to_string(src) + "to" + std::to_string(dst);
      self.enter(name, dtype, n);
      if (self.rank == src) {
        std::vector<at::Tensor> t{input(self.rank, self.world, n, dtype, self.device)};
        self.pg->send(t, dst, 0)->wait();
      } else if (self.rank == dst) {
        std::vector<at::Tensor> t{torch::empty({n}, self.options(dtype))};
        self.pg->recv(t, src, 0)->wait();
        failures += report(self, name, dtype, n, t[0], contribution(src, self.world, n, dtype));
      }
    }
  }
  return failures;
}

}  // namespace

int run_movement(Rank& self, at::ScalarType dtype, int64_t n) {
  int failures = broadcast_from_every_root(self, dtype, n) + allgather_list(self, dtype, n) +
                 allgather_into_tensor(self, dtype, n) + alltoall(self, dtype, n) +
                 sendrecv_every_pair(self, dtype, n);
  // Keeps the ranks in step between sizes; whether a barrier holds at all
  // is its own check (rank_barrier.cpp).
  self.enter("barrier", dtype, n);
  self.pg->barrier(c10d::BarrierOptions())->wait();
  return failures;
}

}  // namespace tdc::collectives
