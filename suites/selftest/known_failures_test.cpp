#include <gtest/gtest.h>

#include "tdc/config_error.h"
#include "tdc/known_failures.h"

namespace {

TEST(KnownFailures, VersionBounds) {
  const std::vector<std::pair<std::string, std::string>> legacy{{">=", "1.13"}, {"<", "2.0"}};
  EXPECT_TRUE(tdc::version_satisfies("1.13.1", legacy));
  EXPECT_FALSE(tdc::version_satisfies("2.13.0+cpu", legacy));
  EXPECT_FALSE(tdc::version_satisfies("1.12.0", legacy));
  EXPECT_TRUE(tdc::version_satisfies("2.14.1+cu130", {{">=", "2.14"}}));
  EXPECT_TRUE(tdc::version_satisfies("anything", {}));
}

TEST(KnownFailures, FindsByTestDeviceAndVersion) {
  const auto list = tdc::WaiverList::parse(
      "# comment\n"
      "\n"
      "Placement.*/privateuseone_* | privateuseone | <2.0 | set_data rejects PrivateUse1\n"
      "Forward.* | * | * | everything\n",
      "waivers.txt");
  ASSERT_EQ(list.size(), 2u);
  const auto hit = list.find("Placement.ModuleToMovesParametersAndBuffers/privateuseone_0",
                             c10::DeviceType::PrivateUse1, "1.13.1");
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->reason, "set_data rejects PrivateUse1");
  EXPECT_EQ(hit->origin, "waivers.txt:3");
  EXPECT_FALSE(list.find("Placement.ModuleToMovesParametersAndBuffers/privateuseone_0",
                         c10::DeviceType::PrivateUse1, "2.13.0"));
  EXPECT_FALSE(list.find("Placement.X/cpu", c10::DeviceType::CPU, "1.13.1"));
  EXPECT_TRUE(list.find("Forward.Anything/cpu_float32", c10::DeviceType::CPU, "2.13.0"));
}

TEST(KnownFailures, HashInsideAReasonIsText) {
  const auto list = tdc::WaiverList::parse("  # a comment line\nA.* | cpu | * | see issue #12\n", "w.txt");
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list.waivers()[0].reason, "see issue #12");
}

TEST(KnownFailures, ReadsCategoryTrackerAndExpiry) {
  const auto list = tdc::WaiverList::parse(
      "A.* | cpu | * | why | dtype | pytorch#123 | 2999-12-31\n", "w.txt",
      tdc::WaiverContext{"2.13.0", "2026-11-30", true});
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list.waivers()[0].category, "dtype");
  EXPECT_EQ(list.waivers()[0].tracker, "pytorch#123");
  EXPECT_EQ(list.waivers()[0].expires, "2999-12-31");
}

TEST(KnownFailures, ReportsWhetherAWaiverMatchesAnyTest) {
  const auto list = tdc::WaiverList::parse(
      "Forward.*/cuda_0_float16 | cuda | * | a\nFroward.* | * | * | b\nForward.* | cdua | * | c\n"
      "Forward.* | cpu | <1.0 | d\n",
      "w.txt", tdc::WaiverContext{"2.13.0", "", false});
  const std::vector<std::string> tests{"Forward.SeedModel/cpu_float16", "Placement.X/cpu"};
  const auto& waivers = list.waivers();
  EXPECT_EQ(tdc::waiver_match_state(waivers[0], tests), "matched");  // the check exists here
  EXPECT_EQ(tdc::waiver_match_state(waivers[1], tests), "no-test");
  EXPECT_EQ(tdc::waiver_match_state(waivers[2], tests), "unknown-device-type");
  EXPECT_EQ(tdc::waiver_match_state(waivers[3], tests), "other-version");
}

TEST(KnownFailures, RejectsMalformedLinesNamingThem) {
  const tdc::WaiverContext qualification{"2.13.0", "2026-11-30", true};
  for (const char* text : {"only | three | fields\n", "A.* | cpu | >>2 | reason\n",
                           "A.* | cpu | * | \n", "A.[* | cpu | * | r\n", "A.* | CPU | * | r\n",
                           "A.* | cpu | * | r | colour | t#1\n", "A.* | cpu | * | r | dtype\n",
                           "A.* | cpu | * | r | dtype | t#1 | 2026-11-29\n",
                           "A.* | cpu | * | r | dtype | t#1 | soon\n", "A.* | cpu | * | untracked\n"}) {
    try {
      tdc::WaiverList::parse(text, "w.txt", qualification);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const tdc::ConfigError& error) {
      EXPECT_NE(std::string(error.what()).find("w.txt:1"), std::string::npos) << error.what();
    }
  }
}

}  // namespace
