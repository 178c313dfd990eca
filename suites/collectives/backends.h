#pragma once
// Where a rank's c10d backend comes from: "gloo" (c10d's ProcessGroupGloo,
// built into LibTorch, cpu only; backend_gloo.cpp, or backend_gloo_absent.cpp
// where gloo's headers were not found), "nccl" (ProcessGroupNCCL, cuda only) or the path of a c10d plugin
// (tdc/c10d_plugin.h; backend_plugin.cpp), with what it declares
// (backend_choice.cpp tries them in order).
#include "rank.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace tdc::collectives {

struct OpenedBackend {
  c10::intrusive_ptr<compat::C10dBackend> backend;
  Undeclared undeclared;
  bool prove_undeclared = false;  // Rank::prove_undeclared
};

// What a ring does not declare: "allreduce_single_rounding" (rank_precision.cpp),
// for `library` ("gloo", "NCCL"), which reduces hop by hop in the tensor's
// dtype; nullopt for any other capability.
inline std::optional<std::string> ring_rounding(const std::string& collective, const std::string& library) {
  if (collective != "allreduce_single_rounding") return std::nullopt;
  return library + " reduces hop by hop in the tensor's dtype, rounding at each hop";
}

// Each throws std::runtime_error with one line when the backend cannot be made.
OpenedBackend open_gloo(const c10::intrusive_ptr<::c10d::Store>& store, int rank, int world,
                        std::chrono::milliseconds timeout);
// NCCL (cuda tensors; backend_nccl.cpp, or backend_nccl_absent.cpp where
// this LibTorch has no CUDA or nccl.h was not found).
OpenedBackend open_nccl(const c10::intrusive_ptr<::c10d::Store>& store, int rank, int world,
                        std::chrono::milliseconds timeout);
OpenedBackend open_plugin(const std::string& path, c10::Device device, const c10::intrusive_ptr<::c10d::Store>& store,
                          int rank, int world, std::chrono::milliseconds timeout);

// Loads a rank's device backends (':'-separated paths; device_backends.cpp),
// and joins a list of them into that one argument.
void load_device_backends(const std::string& list);
std::string join_libraries(const std::vector<std::string>& libraries);

// The first of `candidates` (':'-separated: "gloo" or plugin paths, in the
// order tried) that makes a backend for `device`'s type. When none does, a
// runtime_error starting "SKIP: " lists each one's refusal.
OpenedBackend open_backend(const std::string& candidates, c10::Device device,
                           const c10::intrusive_ptr<::c10d::Store>& store, int rank, int world,
                           std::chrono::milliseconds timeout);

}  // namespace tdc::collectives
