#pragma once
// Device memory statistics for the memory checks, or a skip that names why
// this LibTorch or this device's allocator has none.
#include "tdc/compat/allocator.h"

#include <gtest/gtest.h>

#include <string>

// In a test body: the device's statistics now, or skip with the reason.
#define TDC_MEMORY_STATS_OR_SKIP(stats, device)                                    \
  ::tdc::compat::MemoryStats stats;                                                \
  {                                                                                \
    std::string tdc_why_not_;                                                      \
    auto tdc_found_ = ::tdc::compat::device_memory_stats((device), &tdc_why_not_); \
    if (!tdc_found_) GTEST_SKIP() << tdc_why_not_;                                 \
    stats = *tdc_found_;                                                           \
  }
