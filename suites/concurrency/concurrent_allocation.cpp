// Eight threads allocating, filling, copying and freeing 4 KiB device
// blocks at once never share a block: each block reads back exactly the
// bytes its own thread wrote, and where the device keeps memory statistics,
// allocated bytes end where they started.
#include "thread_problems.h"

#include "tdc/compat/allocator.h"
#include "tdc/fixtures.h"

#include <ATen/ATen.h>
#include <c10/core/DeviceGuard.h>

#include <string>
#include <thread>

namespace {

constexpr int kAllocatingThreads = 8;
constexpr int kRounds = 300;
// One size for every block: an allocator that reuses blocks of a size (a
// cache) gets to hand the same one to two threads, if it can.
constexpr std::int64_t kBlockBytes = 4096;

using ConcurrentAllocation = tdc::DeviceTest;
using tdc::concurrency::ThreadProblems;

TEST_P(ConcurrentAllocation, ThreadsAllocatingAtOnceNeverShareOrCorruptABlock) {
  const auto baseline = tdc::compat::device_memory_stats(device(), nullptr);
  const auto options = at::TensorOptions().device(device()).dtype(at::kByte);
  ThreadProblems problems;
  tdc::concurrency::run_threads(kAllocatingThreads, problems, [&](int thread) {
    c10::DeviceGuard guard(device());
    for (int round = 0; round < kRounds; ++round) {
      // A byte that names the thread and the round, never 0 (fresh memory).
      const auto mark = static_cast<std::uint8_t>((thread * 37 + round) % 251 + 1);
      const auto written = at::full({kBlockBytes}, mark, at::TensorOptions().dtype(at::kByte));
      auto block = at::empty({kBlockBytes}, options);
      block.copy_(written);
      auto twin = at::empty({kBlockBytes}, options);
      twin.copy_(block);
      std::this_thread::yield();
      for (const auto* read : {&block, &twin}) {
        const auto back = read->cpu();
        if (!at::equal(back, written)) {
          const auto stranger = back.ne(written).nonzero()[0][0].item<std::int64_t>();
          problems.add(thread, "round " + std::to_string(round) + ": wrote byte " + std::to_string(mark) +
                                   ", read back " + std::to_string(back[stranger].item<int>()) +
                                   " at offset " + std::to_string(stranger) +
                                   " (another thread's block, or a corrupted one)");
        }
      }
    }
  });
  EXPECT_TRUE(problems.none())
      << "allocating from " << kAllocatingThreads << " threads at once went wrong: the allocator is not thread-safe";
  if (baseline) {
    const auto after = tdc::compat::device_memory_stats(device(), nullptr);
    ASSERT_TRUE(after.has_value())
        << "the memory statistics answered before the threads and not after: the backend's allocator stats vanish under threads";
    EXPECT_EQ(after->allocated, baseline->allocated)
        << after->allocated - baseline->allocated << " bytes still allocated after " << kAllocatingThreads
        << " threads freed every block";
  }
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(ConcurrentAllocation);

}  // namespace
