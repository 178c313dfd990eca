#pragma once
// The producer/consumer pattern that event.md's `block` exists for: a
// producer stream writes a buffer slowly (several wrong values first, the
// right ones last) and records an event; a consumer stream waits for the
// event and copies the buffer on. The consumer sees the right values only if
// its wait really waited.
#include <ATen/ATen.h>
#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>

#include <cstdint>

#include "tdc/compat/events.h"
#include "tdc/patterns.h"

namespace tdc::events {

// 16 MiB of floats, written kStaleWrites + 1 times: long enough that a
// consumer that does not wait starts while the producer is still busy.
constexpr std::int64_t kElements = std::int64_t{1} << 22;
constexpr int kStaleWrites = 4;

struct Handoff {
  at::Tensor expected;  // host: what the producer writes last
  at::Tensor produced;  // the producer's device buffer
  at::Tensor consumed;  // the consumer's device buffer
  at::Tensor received;  // host: what the consumer copied back
};

// `stage` turns a CPU tensor into host memory fit for async copies.
template <typename Stage>
Handoff hand_over(const c10::Stream& producer, const c10::Stream& consumer, Stage stage,
                  std::uint64_t salt) {
  Handoff h;
  h.expected = stage(salted_pattern({kElements}, at::kFloat, salt));
  const auto stale = stage(at::zeros({kElements}));
  h.received = stage(at::full({kElements}, -1.0f));
  h.produced = at::empty({kElements}, at::TensorOptions().device(producer.device()));
  h.consumed = at::empty({kElements}, at::TensorOptions().device(consumer.device()));
  c10::Event ready(producer.device_type(), tdc::compat::event_flag(/*timing=*/false));
  {
    c10::StreamGuard on_producer(producer);
    for (int i = 0; i < kStaleWrites; ++i) h.produced.copy_(stale, /*non_blocking=*/true);
    h.produced.copy_(h.expected, /*non_blocking=*/true);
    ready.record(producer);
  }
  {
    c10::StreamGuard on_consumer(consumer);
    ready.block(consumer);
    h.consumed.copy_(h.produced, /*non_blocking=*/true);
    h.received.copy_(h.consumed, /*non_blocking=*/true);
  }
  consumer.synchronize();
  producer.synchronize();
  return h;
}

}  // namespace tdc::events
