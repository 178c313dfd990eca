#pragma once
// One rank of the collectives check (tdc_collective_rank): who it is, its
// process group, the fault in force and the collective it is in now. The
// collectives are split by kind: rank_reductions.cpp (allreduce, reduce,
// reduce_scatter) and rank_movement.cpp (broadcast, allgather, alltoall,
// send/recv, barrier); each returns how many of its RESULT lines were wrong.
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/torch.h>

#include <cstdint>
#include <string>

namespace tdc::collectives {

struct Rank {
  int rank = 0;
  int world = 2;
  // TDC_COLLECTIVE_FAULT (rank_faults.h), empty for none.
  std::string fault;
  // The collective running now, named by the ERROR line when it throws (a
  // gloo timeout on a hung peer): "<collective> <dtype> <count>".
  std::string current = "rendezvous";
  c10d::ProcessGroupGloo* pg = nullptr;

  // Names the collective about to run (Rank::current).
  void enter(const std::string& name, at::ScalarType dtype, int64_t n) {
    current = name + " " + c10::toString(dtype) + " " + std::to_string(n);
  }
};

int run_reductions(Rank& self, at::ScalarType dtype, int64_t n);
int run_movement(Rank& self, at::ScalarType dtype, int64_t n);

}  // namespace tdc::collectives
