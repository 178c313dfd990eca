#pragma once
// A rank's verdict lines, read by the check (collectives.cpp):
//   RESULT <collective> <dtype> <count> wrong=<k> rank=<r>
//       [first_wrong=<index> got=<value> want=<value>]
// (nccl-tests' #wrong, plus the first element that differs, so a failure
// names the rank, the collective, the dtype and where it went wrong), and
//   SKIP <collective> <dtype>: <what this backend does not declare>.
#include "rank.h"

#include <string>

namespace tdc::collectives {

// Compares every element of `got` with the float64 host reference `want`,
// prints the RESULT line; returns 1 if any element differs, else 0.
int report(const Rank& self, const std::string& name, at::ScalarType dtype, int64_t n, at::Tensor got,
           const at::Tensor& want);

// Prints the SKIP line of a capability the backend does not declare.
void skip(const std::string& name, at::ScalarType dtype, const std::string& why);

}  // namespace tdc::collectives
