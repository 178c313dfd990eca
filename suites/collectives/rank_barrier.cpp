// Whether the backend's barrier holds a rank until every rank has arrived.
// Every rank but 0 arrives late: it first waits (kLate) for rank 0 to say it
// has left the barrier, which a barrier that holds makes impossible, so the
// wait runs out, and then marks its arrival in the store and enters. Rank 0
// marks its arrival, enters at once, and on leaving counts the ranks whose
// arrival is not in the store: a barrier that holds leaves none (they marked
// it before entering), a barrier that returns at once leaves every late rank
// (still waiting on rank 0), unless rank 0 stalls for kLate between leaving
// and counting. The count is the RESULT line's wrong=. It costs one kLate.
#include "rank.h"
#include "rank_report.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace tdc::collectives {

namespace {
constexpr auto kLate = std::chrono::milliseconds(1000);
std::string arrived(int r) { return "tdc_barrier/arrived/" + std::to_string(r); }
constexpr const char* kLeft = "tdc_barrier/left/0";
}  // namespace

int run_barrier_holds(Rank& self) {
  if (auto why = self.undeclared("barrier", at::kByte)) {
    skip("barrier", at::kByte, *why);
    return 0;
  }
  self.enter("barrier", at::kByte, 0);
  if (self.rank != 0) {
    try {
      self.store->wait({kLeft}, kLate);
    } catch (const std::exception&) {
      // The wait running out is the expected way on.
    }
  }
  self.store->set(arrived(self.rank), std::vector<uint8_t>{1});
  self.pg->barrier(c10d::BarrierOptions())->wait();
  int64_t missing = 0;
  if (self.rank == 0) {
    for (int r = 0; r < self.world; ++r) missing += self.store->check({arrived(r)}) ? 0 : 1;
    self.store->set(kLeft, std::vector<uint8_t>{1});
  }
  std::printf("RESULT barrier_holds_early_ranks Byte 0 wrong=%lld rank=%d\n", static_cast<long long>(missing),
              self.rank);
  std::fflush(stdout);
  return missing == 0 ? 0 : 1;
}

}  // namespace tdc::collectives
