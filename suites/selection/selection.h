#pragma once
// Selection.<Case>: the seed's rule. A current accelerator that failed
// discovery fails every selection check naming that prerequisite, instead of
// each check asking the broken backend again.
#include <gtest/gtest.h>

#include "tdc/discovery.h"

class Selection : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto report = tdc::select_device();
    if (!report.error.empty()) GTEST_FATAL_FAILURE_(report.error.c_str());
  }
};
