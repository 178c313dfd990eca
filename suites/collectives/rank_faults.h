#pragma once
// The faults that prove the collectives check can fail (TDC_COLLECTIVE_FAULT;
// the self-tests in this folder's CMakeLists.txt set them):
//   wrong-chunk                  rank 1 adds 1 to the first chunk of every
//                                result before verifying it;
//   hang-rank=1                  rank 1 never enters the first collective;
//   wrong-contribution=<family>[,<family>...]
//                                rank 1 adds 1 to element numel/3 of its
//                                input to every collective of each <family>
//                                (allreduce_sum, allreduce_avg, reduce,
//                                reduce_scatter, broadcast, allgather,
//                                allgather_into_tensor): the backend computes
//                                with a wrong contribution and the verifying
//                                ranks see it, by rank, op, dtype and element.
#include "rank.h"

#include <string>

namespace tdc::collectives {

// Sleeps for an hour on rank 1 under hang-rank=1: its peer times out.
void maybe_hang(const Rank& self);

// Corrupts the first chunk of a result on rank 1 under wrong-chunk.
void maybe_corrupt_result(const Rank& self, at::Tensor& result);

// Plants the wrong contribution of wrong-contribution=<family> in `input`.
void maybe_plant(const Rank& self, const std::string& family, at::Tensor& input);

}  // namespace tdc::collectives
