// One rank of the collectives check: joins a gloo process group through a
// c10d::FileStore, runs each collective on rank- and index-dependent inputs,
// verifies every element against a host reference and prints one line per
// collective ("RESULT <name> <dtype> <count> wrong=<k>"), like nccl-tests'
// #wrong. The parent (collectives.cpp) starts one per rank, so no torch
// thread is ever forked. Faults (TDC_COLLECTIVE_FAULT) prove the checks:
//   wrong-chunk  rank 1 corrupts one chunk of each result before verifying;
//   hang-rank=1  rank 1 never enters the first collective.
// Only APIs identical in LibTorch 1.13 and 2.x are used (createDeviceForHostname,
// the ops' vector signatures, auto for the Work type), so no compat header.
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

int g_rank = 0;
int g_world = 2;
std::string g_fault;
// The collective running now, named by the ERROR line when it throws (a
// gloo timeout on a hung peer).
std::string g_current = "rendezvous";

// Element i of rank r's input: distinct per rank and index, small enough
// that sums and products over 2 ranks stay exact in float32 and int32.
at::Tensor input(int r, int64_t n, at::ScalarType dt) {
  auto idx = torch::arange(n, torch::kLong);
  return ((idx * 7 + r * 3) % 13 + 1 + r).to(dt);
}

// Rank 1 corrupts chunk 0 of a result under the wrong-chunk fault.
void maybe_corrupt(at::Tensor& t) {
  if (g_fault == "wrong-chunk" && g_rank == 1) {
    auto flat = t.view({-1});
    int64_t chunk = std::max<int64_t>(1, flat.numel() / g_world);
    flat.narrow(0, 0, chunk).add_(1);
  }
}

void maybe_hang() {
  if (g_fault == "hang-rank=1" && g_rank == 1) {
    std::this_thread::sleep_for(std::chrono::hours(1));
  }
}

int report(const std::string& name, at::ScalarType dt, int64_t n, at::Tensor got, const at::Tensor& want) {
  maybe_corrupt(got);
  int64_t wrong = got.to(torch::kDouble).ne(want.to(torch::kDouble)).sum().item<int64_t>();
  std::printf("RESULT %s %s %lld wrong=%lld rank=%d\n", name.c_str(), c10::toString(dt),
              static_cast<long long>(n), static_cast<long long>(wrong), g_rank);
  std::fflush(stdout);
  return wrong == 0 ? 0 : 1;
}

template <typename PG>
int run_all(PG& pg, at::ScalarType dt, int64_t n) {
  int failures = 0;
  auto mine = [&] { return input(g_rank, n, dt); };
  struct Op { const char* name; c10d::ReduceOp::RedOpType op; };
  for (Op op : {Op{"allreduce_sum", c10d::ReduceOp::SUM}, Op{"allreduce_max", c10d::ReduceOp::MAX},
                Op{"allreduce_min", c10d::ReduceOp::MIN}, Op{"allreduce_product", c10d::ReduceOp::PRODUCT}}) {
    std::vector<at::Tensor> t{mine()};
    c10d::AllreduceOptions o;
    o.reduceOp = c10d::ReduceOp(op.op);
    g_current = std::string(op.name) + " " + c10::toString(dt) + " " + std::to_string(n);
    maybe_hang();
    pg.allreduce(t, o)->wait();
    at::Tensor want = input(0, n, torch::kDouble);
    for (int r = 1; r < g_world; ++r) {
      auto x = input(r, n, torch::kDouble);
      if (op.op == c10d::ReduceOp::SUM) want = want + x;
      if (op.op == c10d::ReduceOp::MAX) want = torch::maximum(want, x);
      if (op.op == c10d::ReduceOp::MIN) want = torch::minimum(want, x);
      if (op.op == c10d::ReduceOp::PRODUCT) want = want * x;
    }
    failures += report(op.name, dt, n, t[0], want);
  }
  std::printf("SKIP allreduce_avg %s: gloo declares no AVG reduce op\n", c10::toString(dt));
  for (int root = 0; root < g_world; ++root) {
    std::vector<at::Tensor> t{mine()};
    c10d::BroadcastOptions o;
    o.rootRank = root;
    g_current = "broadcast_root" + std::to_string(root);
    pg.broadcast(t, o)->wait();
    failures += report("broadcast_root" + std::to_string(root), dt, n, t[0], input(root, n, torch::kDouble));
  }
  {
    std::vector<at::Tensor> in{mine()};
    std::vector<std::vector<at::Tensor>> out(1);
    for (int r = 0; r < g_world; ++r) out[0].push_back(torch::empty({n}, dt));
    g_current = "allgather";
    pg.allgather(out, in)->wait();
    std::vector<at::Tensor> want;
    for (int r = 0; r < g_world; ++r) want.push_back(input(r, n, torch::kDouble));
    failures += report("allgather", dt, n, torch::cat(out[0]), torch::cat(want));
  }
  {
    // alltoall_base: rank r's chunk j goes to rank j; count is n per chunk.
    at::Tensor in = input(g_rank, n * g_world, dt);
    at::Tensor out = torch::empty({n * g_world}, dt);
    std::vector<int64_t> split;
    g_current = "alltoall";
    pg.alltoall_base(out, in, split, split, c10d::AllToAllOptions())->wait();
    std::vector<at::Tensor> want;
    for (int r = 0; r < g_world; ++r) want.push_back(input(r, n * g_world, torch::kDouble).narrow(0, g_rank * n, n));
    failures += report("alltoall", dt, n, out, torch::cat(want));
  }
  for (int src = 0; src < g_world; ++src) {
    for (int dst = 0; dst < g_world; ++dst) {
      if (src == dst) continue;
      g_current = "sendrecv_" + std::to_string(src) + "to" + std::to_string(dst);
      if (g_rank == src) {
        std::vector<at::Tensor> t{mine()};
        pg.send(t, dst, 0)->wait();
      } else if (g_rank == dst) {
        std::vector<at::Tensor> t{torch::empty({n}, dt)};
        pg.recv(t, src, 0)->wait();
        failures += report("sendrecv_" + std::to_string(src) + "to" + std::to_string(dst), dt, n, t[0],
                           input(src, n, torch::kDouble));
      }
    }
  }
  g_current = "barrier";
  pg.barrier(c10d::BarrierOptions())->wait();
  std::printf("RESULT barrier %s %lld wrong=0 rank=%d\n", c10::toString(dt), static_cast<long long>(n), g_rank);
  std::printf("SKIP reduce_scatter %s: not run by this increment (gloo lacks it on LibTorch 1.13)\n",
              c10::toString(dt));
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: tdc_collective_rank <rank> <world> <store-file> <timeout-ms>\n");
    return 2;
  }
  g_rank = std::atoi(argv[1]);
  g_world = std::atoi(argv[2]);
  const char* fault = std::getenv("TDC_COLLECTIVE_FAULT");
  g_fault = fault ? fault : "";
  try {
    auto store = c10::make_intrusive<c10d::FileStore>(argv[3], g_world);
    auto opts = c10d::ProcessGroupGloo::Options::create(std::chrono::milliseconds(std::atoi(argv[4])));
    opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    c10d::ProcessGroupGloo pg(store, g_rank, g_world, opts);
    int64_t big = std::getenv("TDC_COLLECTIVE_LARGE") ? (64 << 20) / 4 : (1 << 20) / 4;
    int failures = 0;
    for (at::ScalarType dt : {torch::kFloat, torch::kInt}) {
      for (int64_t n : {int64_t{1}, int64_t{1000}, big}) {
        failures += run_all(pg, dt, n);
      }
    }
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::string what = e.what();
    std::printf("ERROR rank=%d in %s: %s\n", g_rank, g_current.c_str(), what.substr(0, what.find('\n')).c_str());
    return 1;
  }
}
