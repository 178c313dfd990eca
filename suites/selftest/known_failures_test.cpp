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
      "Placement.*/privateuseone_* | privateuseone | <2.0 | set_data rejects PrivateUse1  # why\n"
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

TEST(KnownFailures, RejectsMalformedLinesNamingThem) {
  for (const char* text : {"only | three | fields\n", "A.* | cpu | >>2 | reason\n",
                           "A.* | cpu | * | \n"}) {
    try {
      tdc::WaiverList::parse(text, "w.txt");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const tdc::ConfigError& error) {
      EXPECT_NE(std::string(error.what()).find("w.txt:1"), std::string::npos) << error.what();
    }
  }
}

}  // namespace
