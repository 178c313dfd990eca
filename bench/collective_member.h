#pragma once
// One rank of a tdc_bench_collectives world, leader (rank 0, the program
// itself, which runs Google Benchmark) or follower (ranks 1.., the program
// started again in follower mode), and the commands the leader hands every
// rank through the world's c10d store. Google Benchmark decides how often a
// benchmark runs from each process's own clock (iteration counts, warm-up,
// interleaving), so only the leader runs it and the followers do what it
// says: every rank then calls the same collectives, in the same order, the
// same number of times. The commands go through the store, never through
// the backend under test, whose wrong results must not become wrong commands.
#include "collective_ops.h"

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace tdc::bench::collectives {

// What every rank of a world does next.
struct Command {
  enum class Kind { kVerify, kRun, kDone };
  Kind kind = Kind::kDone;
  Op op = Op::kAllreduce;
  std::int64_t elements = 0;
  std::int64_t count = 0;  // kRun: calls in the timed batch

  std::string text() const;                          // "run allreduce 1024 16"
  static Command parse(const std::string& text);     // throws std::runtime_error
};

struct Member {
  int rank = 0;
  int world = 2;
  c10::Device device = c10::kCPU;
  c10::intrusive_ptr<::c10d::Store> store;
  c10::intrusive_ptr<compat::C10dBackend> backend;
  // The buffers of the op and size last verified, kept for its timed batches.
  std::optional<Op> op;
  std::int64_t elements = 0;
  Buffers buffers;
};

// The store keys of the command numbered `seq`, and of the wrong elements its
// verification found (every rank adds its own count).
std::string command_key(std::int64_t seq);
std::string wrong_key(std::int64_t seq);

// Runs `command` on this rank. kVerify: fresh buffers with this rank's input,
// one call, the wrong elements added to the store under wrong_key(seq), a
// barrier (after which the sum is complete); returns 0. kRun: a barrier,
// then `count` calls, each waited for, and the device synchronised; returns
// the seconds on this rank's clock from after the barrier to the end.
double execute(Member& self, const Command& command, std::int64_t seq);

}  // namespace tdc::bench::collectives
