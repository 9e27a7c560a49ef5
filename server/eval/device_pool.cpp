// eval/device_pool.cpp: leases on a pool's members, one check per judge at a time.
#include "eval/device_pool.h"

#include <algorithm>

#include "eval/worker_process.h"

namespace hone::eval {

DevicePool::DevicePool(std::vector<PoolMember> members) {
  if (members.empty()) throw std::invalid_argument("a device pool needs a member");
  for (std::size_t i = 0; i < members.size(); ++i) {
    PoolMemberState s;
    s.member = std::move(members[i]);
    s.member.ordinal = static_cast<int>(i);
    states_.push_back(std::move(s));
  }
}

DevicePool::Lease::~Lease() {
  if (pool_) pool_->release(ordinal_);
}

const PoolMember& DevicePool::Lease::member() const { return pool_->states_[static_cast<std::size_t>(ordinal_)].member; }

DevicePool::Lease DevicePool::acquire(const std::optional<std::string>& kind, std::stop_token stop) {
  std::unique_lock lock(mutex_);
  auto matches = [&](const PoolMemberState& s) { return !s.retired && (!kind || s.member.kind == *kind); };
  int chosen = -1;
  auto pick = [&] {
    chosen = -1;
    if (std::none_of(states_.begin(), states_.end(), matches)) return true;  // exhausted: stop waiting
    for (const auto& s : states_)
      if (matches(s) && !s.busy && (chosen < 0 || s.checks < states_[static_cast<std::size_t>(chosen)].checks))
        chosen = s.member.ordinal;
    return chosen >= 0;
  };
  if (!changed_.wait(lock, stop, pick)) throw Cancelled();
  if (chosen < 0) {
    std::string why;
    for (const auto& s : states_)
      if (s.retired && (!kind || s.member.kind == *kind)) why += (why.empty() ? "" : "; ") + s.why;
    throw PoolExhausted("no GPU " + (kind ? "of kind " + *kind + " " : std::string()) + "is left in the pool (" +
                        (why.empty() ? "none of that kind" : why) + ")");
  }
  auto& s = states_[static_cast<std::size_t>(chosen)];
  s.busy = true;
  ++s.checks;
  return Lease(*this, chosen);
}

void DevicePool::release(int ordinal) {
  {
    std::lock_guard lock(mutex_);
    states_[static_cast<std::size_t>(ordinal)].busy = false;
  }
  changed_.notify_all();
}

bool DevicePool::retire(int ordinal, const std::string& why) {
  {
    std::lock_guard lock(mutex_);
    auto& s = states_[static_cast<std::size_t>(ordinal)];
    if (s.retired) return true;
    int live_now = 0;
    for (const auto& o : states_) live_now += o.retired ? 0 : 1;
    if (live_now <= 1) return false;
    s.retired = true;
    s.why = why;
  }
  changed_.notify_all();
  return true;
}

std::vector<std::string> DevicePool::kinds() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& s : states_)
    if (!s.retired && std::find(out.begin(), out.end(), s.member.kind) == out.end()) out.push_back(s.member.kind);
  return out;
}

int DevicePool::live(const std::optional<std::string>& kind) const {
  std::lock_guard lock(mutex_);
  int n = 0;
  for (const auto& s : states_) n += !s.retired && (!kind || s.member.kind == *kind) ? 1 : 0;
  return n;
}

std::vector<PoolMemberState> DevicePool::state() const {
  std::lock_guard lock(mutex_);
  return states_;
}

}  // namespace hone::eval
