#include "collective_member.h"

#include "tdc/compat/timing.h"

#include <chrono>
#include <sstream>
#include <stdexcept>

namespace tdc::bench::collectives {
namespace {

const char* kind_name(Command::Kind kind) {
  switch (kind) {
    case Command::Kind::kVerify: return "verify";
    case Command::Kind::kRun: return "run";
    case Command::Kind::kDone: return "done";
  }
  return "?";
}

void barrier(Member& self) { self.backend->barrier(::c10d::BarrierOptions())->wait(); }

}  // namespace

std::string Command::text() const {
  if (kind == Kind::kDone) return "done";
  return std::string(kind_name(kind)) + " " + info(op).name + " " + std::to_string(elements) + " " +
         std::to_string(count);
}

Command Command::parse(const std::string& text) {
  std::istringstream fields(text);
  std::string kind, op;
  Command c;
  fields >> kind;
  if (kind == "done") return c;
  fields >> op >> c.elements >> c.count;
  if (kind == "verify") {
    c.kind = Kind::kVerify;
  } else if (kind == "run") {
    c.kind = Kind::kRun;
  } else {
    throw std::runtime_error("unknown command '" + text + "'");
  }
  bool known = false;
  for (const auto& i : all_ops()) {
    if (op == i.name) {
      c.op = i.op;
      known = true;
    }
  }
  if (!known || !fields || c.elements < 1 || c.count < 1) throw std::runtime_error("bad command '" + text + "'");
  return c;
}

std::string command_key(std::int64_t seq) { return "tdc_bench_collectives/command/" + std::to_string(seq); }
std::string wrong_key(std::int64_t seq) { return "tdc_bench_collectives/wrong/" + std::to_string(seq); }

double execute(Member& self, const Command& command, std::int64_t seq) {
  using Clock = std::chrono::steady_clock;
  const Op op = command.op;
  if (command.kind == Command::Kind::kVerify) {
    self.buffers = make_buffers(op, command.elements, self.rank, self.world, self.device);
    self.op = op;
    self.elements = command.elements;
    issue(*self.backend, op, self.buffers)->wait();
    compat::synchronize(self.device);
    self.store->add(wrong_key(seq), count_wrong(op, self.buffers, command.elements, self.rank, self.world));
    barrier(self);
    return 0;
  }
  if (command.kind != Command::Kind::kRun) throw std::logic_error("execute: nothing to run for 'done'");
  if (self.op != op || self.elements != command.elements) {  // the leader verifies first; kept for safety
    self.buffers = make_buffers(op, command.elements, self.rank, self.world, self.device);
    self.op = op;
    self.elements = command.elements;
  }
  compat::synchronize(self.device);
  barrier(self);
  const auto started = Clock::now();
  for (std::int64_t i = 0; i < command.count; ++i) issue(*self.backend, op, self.buffers)->wait();
  // wait() on an accelerator may only order the current stream after the
  // collective: the clock is read once the device has done it.
  compat::synchronize(self.device);
  return std::chrono::duration<double>(Clock::now() - started).count();
}

}  // namespace tdc::bench::collectives
