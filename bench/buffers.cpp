#include "buffers.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include <cstring>

namespace tdc::bench {

at::Tensor seeded_bytes(std::int64_t bytes, std::uint64_t seed) {
  auto tensor = at::empty({bytes}, at::kByte);
  auto* out = tensor.data_ptr<std::uint8_t>();
  // splitmix64: cheap enough for 256 MiB, and no byte pattern repeats at a
  // power-of-two period a broken copy could hide behind.
  std::uint64_t state = seed;
  for (std::int64_t offset = 0; offset < bytes; offset += 8) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    std::memcpy(out + offset, &z, static_cast<size_t>(std::min<std::int64_t>(8, bytes - offset)));
  }
  return tensor;
}

const std::string& pinned_unsupported_reason() {
  static const std::string reason = []() -> std::string {
    try {
      const auto probe = at::empty({1}, at::kByte).pin_memory();
      if (!probe.is_pinned()) return "pin_memory() returned memory that is not pinned";
      return "";
    } catch (const c10::Error& error) {
      // The dispatcher's message lists every backend; its first sentence says it.
      std::string message = error.what_without_backtrace();
      const auto end = message.find(". ");
      if (end != std::string::npos) message.resize(end + 1);
      return "pin_memory() failed: " + message;
    }
  }();
  return reason;
}

at::Tensor pinned(const at::Tensor& host) { return host.pin_memory(); }

}  // namespace tdc::bench
