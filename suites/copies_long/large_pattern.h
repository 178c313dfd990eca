// The one host pattern both large-copy suites move: 8193 x 8193 float32 =
// 268,500,996 bytes, just over 256 MiB (268,435,456), with odd dimensions so
// that no chunk size divides it. Made once per process (it takes seconds).
#pragma once

#include <ATen/ATen.h>

#include "tdc/patterns.h"

namespace tdc::copies_long {

inline const at::Tensor& large_host_pattern() {
  static const at::Tensor pattern = tdc::salted_pattern({8193, 8193}, at::kFloat, 256);
  return pattern;
}

}  // namespace tdc::copies_long
