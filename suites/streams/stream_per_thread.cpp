// The current stream belongs to the thread: a StreamGuard on another
// thread does not change this thread's stream on the same device.
#include <c10/core/StreamGuard.h>

#include <thread>

#include "tdc/rendezvous.h"
#include "tdc/stream_fixtures.h"

namespace {

using StreamPerThread = tdc::StreamTest;

TEST_P(StreamPerThread, AnotherThreadsStreamDoesNotMoveThisOne) {
  const auto mine = pool_stream();
  const auto theirs = pool_stream();
  ASSERT_NE(mine, theirs) << "the pool gave the same stream twice in a row";
  tdc::TwoThreadRendezvous both_set, both_read;
  std::optional<c10::Stream> seen_by_other_thread;
  std::thread other([&] {
    c10::StreamGuard guard(theirs);
    both_set.arrive_and_wait();
    seen_by_other_thread = current_stream();
    both_read.arrive_and_wait();
  });
  {
    c10::StreamGuard guard(mine);
    both_set.arrive_and_wait();
    const auto seen = current_stream();
    both_read.arrive_and_wait();
    EXPECT_EQ(seen, mine) << "this thread's stream after another thread chose stream " << theirs.id();
  }
  other.join();
  ASSERT_TRUE(seen_by_other_thread.has_value()) << "the other thread read no current stream of " << device();
  EXPECT_EQ(*seen_by_other_thread, theirs) << "the other thread's stream";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(StreamPerThread);

}  // namespace
