#pragma once
// Host-side buffers for the transfer benchmarks: salted contents, so every
// destination can be checked byte for byte, and page-locked memory where the
// build provides it.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

namespace tdc::bench {

// `bytes` uint8 values on the host, a function of `seed` only.
at::Tensor salted_bytes(std::int64_t bytes, std::uint64_t salt);

// Empty when pin_memory() works in this process, else why not (probed once:
// a build without an accelerator, or a plugin without pinned-memory hooks).
const std::string& pinned_unsupported_reason();

// `host` copied into page-locked memory. Call only when pinning works.
at::Tensor pinned(const at::Tensor& host);

}  // namespace tdc::bench
