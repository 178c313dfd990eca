#pragma once
// One rank of the collectives check (tdc_collective_rank): who it is, the
// c10d backend under test, what that backend declares, the fault in force
// and the collective it is in now. The collectives are split by kind:
// rank_reductions.cpp (allreduce, reduce, reduce_scatter) and
// rank_movement.cpp (broadcast, allgather, alltoall, send/recv, barrier);
// each returns how many of its RESULT lines were wrong.
#include "tdc/compat/c10d.h"

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace tdc::collectives {

// Why the backend does not declare `collective` ("allreduce_avg", ...;
// "every_collective" for a dtype as a whole) for a dtype, or nullopt.
using Undeclared = std::function<std::optional<std::string>(const std::string& collective, at::ScalarType dtype)>;

struct Rank {
  int rank = 0;
  int world = 2;
  // TDC_COLLECTIVE_FAULT (rank_faults.h), empty for none.
  std::string fault;
  // The collective running now, named by the ERROR line when it throws (a
  // timeout on a hung peer): "<collective> <dtype> <count>".
  std::string current = "rendezvous";
  // Where this rank's tensors live: cpu, or index `rank` of the device type under test.
  c10::Device device = c10::kCPU;
  c10::intrusive_ptr<::c10d::Store> store;
  compat::C10dBackend* pg = nullptr;
  Undeclared undeclared;
  // Whether what `undeclared` says is TDC's own knowledge of the backend
  // (gloo: tdc/compat/gloo.h), which the rank then proves by running the
  // capability once and seeing it throw (rank_report.h, skip_undeclared);
  // a plugin's declarations are its own.
  bool prove_undeclared = false;

  at::TensorOptions options(at::ScalarType dtype) const { return at::TensorOptions().dtype(dtype).device(device); }

  // Names the collective about to run (Rank::current).
  void enter(const std::string& name, at::ScalarType dtype, int64_t n) {
    current = name + " " + c10::toString(dtype) + " " + std::to_string(n);
  }
};

int run_reductions(Rank& self, at::ScalarType dtype, int64_t n);
// Level 1's smoke check: one float32 SUM allreduce of 1000 elements.
int run_smoke(Rank& self);
int run_movement(Rank& self, at::ScalarType dtype, int64_t n);
// How a bfloat16 SUM is rounded, in worlds of three ranks or more
// (rank_precision.cpp).
int run_bfloat16_precision(Rank& self);
// The barrier holds an early rank until the last one arrives (rank_barrier.cpp).
int run_barrier_holds(Rank& self);
// The work waits for the caller's current stream and wait() publishes the
// result to it, on the default and on a side stream (rank_streams.cpp).
int run_stream_semantics(Rank& self);

}  // namespace tdc::collectives
