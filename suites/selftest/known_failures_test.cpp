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

// Fail closed, round 3, finding 8: an expiry is a calendar date, leap years
// included; a version bound too large for an int is refused, not read.
TEST(KnownFailures, ExpiryIsACalendarDate) {
  const tdc::WaiverContext context{"2.13.0", "2026-01-01", false};
  for (const char* date : {"2028-02-29", "2400-02-29", "2027-12-31", "2027-04-30"}) {
    const auto line = std::string("A.* | cpu | * | r | dtype | t#1 | ") + date + "\n";
    EXPECT_NO_THROW(tdc::WaiverList::parse(line, "w.txt", context)) << date;
  }
  for (const char* date : {"2027-02-30", "2026-02-30", "2027-02-29", "2100-02-29", "2027-04-31",
                           "2027-00-10", "2027-13-01", "2027-01-00", "2027-1-01", "20270101"}) {
    const auto line = std::string("A.* | cpu | * | r | dtype | t#1 | ") + date + "\n";
    try {
      tdc::WaiverList::parse(line, "w.txt", context);
      ADD_FAILURE() << "accepted as a date: " << date;
    } catch (const tdc::ConfigError& error) {
      EXPECT_NE(std::string(error.what()).find("is not a calendar date"), std::string::npos) << error.what();
    }
  }
}

TEST(KnownFailures, VersionBoundsAreRefusedNotOverflowed) {
  for (const char* bound : {"<99999999999", ">=2.1234567", "<2.0.0.1", "<2.", ">=", "<2.x", "~2.0"}) {
    try {
      tdc::WaiverList::parse(std::string("A.* | cpu | ") + bound + " | r\n", "w.txt", {"2.13.0", "", false});
      ADD_FAILURE() << "accepted: " << bound;
    } catch (const tdc::ConfigError& error) {
      EXPECT_NE(std::string(error.what()).find("w.txt:1: version bound"), std::string::npos) << error.what();
    }
  }
  const auto list = tdc::WaiverList::parse("A.* | cpu | >= 1.13, <999999.0 | r\n", "w.txt", {"2.13.0", "", false});
  EXPECT_TRUE(list.waivers()[0].applies_to_this_torch);
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
