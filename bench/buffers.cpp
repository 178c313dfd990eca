#include "buffers.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <c10/util/Exception.h>


namespace tdc::bench {

at::Tensor salted_bytes(std::int64_t bytes, std::uint64_t salt) {
  // A generator of our own, so the bytes depend on the salt alone; uniform
  // bytes repeat at no power-of-two period a broken copy could hide behind.
  auto generator = at::make_generator<at::CPUGeneratorImpl>(salt);
  return at::randint(256, {bytes}, generator, at::TensorOptions().dtype(at::kByte));
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
