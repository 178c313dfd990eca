// A backend library that misbehaves while it loads, the ways vendor code
// does; TDC_MISBEHAVE picks how. The suite must turn each into one line and
// exit status 2, never a silent exit 0, a crash or a hang.
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

std::string behaviour() {
  const char* raw = std::getenv("TDC_MISBEHAVE");
  return raw ? raw : "";
}

struct MisbehaveAtLoad {
  MisbehaveAtLoad() {
    const auto how = behaviour();
    if (how == "exit") std::exit(0);
    if (how == "abort") std::abort();
    if (how == "segfault") std::raise(SIGSEGV);
    if (how == "throw") throw std::runtime_error("vendor constructor failed");
    if (how == "hang") {
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
};

const MisbehaveAtLoad kAtLoad;

}  // namespace

extern "C" __attribute__((visibility("default"))) const char* tdc_plugin_config_error(void) {
  const auto how = behaviour();
  if (how == "config-multiline") return "first line of the reason\nsecond line";
  if (how == "config-empty") return "";
  return nullptr;
}
