#pragma once
// A rank's verdict lines, read by the check (collectives.cpp):
//   RESULT <collective> <dtype> <count> wrong=<k> rank=<r>
//       [first_wrong=<index> got=<value> want=<value>]
// (nccl-tests' #wrong, plus the first element that differs, so a failure
// names the rank, the collective, the dtype and where it went wrong), and
//   SKIP <collective> <dtype>: <what this backend does not declare>.
#include "rank.h"

#include <functional>
#include <string>

namespace tdc::collectives {

// Compares every element of `got` with the float64 host reference `want`
// rounded once to `dtype` (a floating dtype's average over three ranks is
// not exact), prints the RESULT line; returns 1 if any element differs, else 0.
int report(const Rank& self, const std::string& name, at::ScalarType dtype, int64_t n, at::Tensor got,
           const at::Tensor& want);

// As report(), but an element is wrong only where it is more than
// `tolerance` (float64, elementwise or one value) from `want` itself.
int report_within(const Rank& self, const std::string& name, at::ScalarType dtype, int64_t n, at::Tensor got,
                  const at::Tensor& want, const at::Tensor& tolerance);

// Prints the SKIP line of a capability the backend does not declare.
void skip(const std::string& name, at::ScalarType dtype, const std::string& why);

// The SKIP line of an undeclared capability, at the first size only (n 1).
// Where the rank proves its declarations (Rank::prove_undeclared), it first
// runs `attempt` (the capability, once; empty: nothing can be attempted
// safely, and the line is a plain SKIP): it must throw, and the line says
// "(confirmed: it throws)"; if it runs, the declaration is wrong and an
// ERROR line says so. Returns the number of failures (0 or 1).
int skip_undeclared(const Rank& self, const std::string& name, at::ScalarType dtype, int64_t n,
                    const std::string& why, const std::function<void()>& attempt);

}  // namespace tdc::collectives
