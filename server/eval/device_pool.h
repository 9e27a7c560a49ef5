// eval/device_pool.h: the devices a host's checks spread over: one judge (a WorkerSlot) per GPU,
// a queue per GPU kind ("NVIDIA H200"). A check takes a lease on a free member (of the kind it
// asks for, else of any kind), runs on that member's judge and gives it back; a member whose GPU
// failed (its judge died, a sticky CUDA error, a device that no longer starts) is retired with a
// message and its check goes to another member. The engine builds the pool (engine.cpp) and uses
// it from any thread; fake GPUs (CPU judges named as GPUs, $HONE_FAKE_GPUS) make it testable
// without a GPU.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include "eval/worker_slot.h"
#include "protocol/device.h"

namespace hone::eval {

struct PoolMember {
  int ordinal = 0;                                   // place in the pool (0 = the primary)
  protocol::Device device = protocol::Device::cpu(); // what its judge is told ("cuda:2"; "cpu" for a fake GPU)
  std::string kind;                                  // the GPU's name: members of one name form a queue
  std::optional<int> index;                          // the GPU index a verdict names (none for the plain CPU)
  std::string uuid;                                  // "GPU-..." ("FAKE-2" for a fake GPU); may be empty
  std::shared_ptr<WorkerSlot> slot;                  // its judge
};

// No live member can take the check (every member of the kind asked for was retired).
class PoolExhausted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One member's state, for status lines and tests.
struct PoolMemberState {
  PoolMember member;
  bool retired = false;
  std::string why;   // why it was retired
  bool busy = false;
  int checks = 0;    // leases taken
};

class DevicePool {
 public:
  explicit DevicePool(std::vector<PoolMember> members);  // at least one

  // A member held for one check; given back when destroyed.
  class Lease {
   public:
    Lease(DevicePool& pool, int ordinal) : pool_(&pool), ordinal_(ordinal) {}
    Lease(Lease&& other) noexcept : pool_(other.pool_), ordinal_(other.ordinal_) { other.pool_ = nullptr; }
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    ~Lease();
    const PoolMember& member() const;

   private:
    DevicePool* pool_;
    int ordinal_;
  };

  // Waits (cancellably: throws Cancelled) until a live member of `kind` (any kind when nullopt)
  // is free and leases the one that has run the fewest checks. Throws PoolExhausted when no live
  // member of that kind is left.
  Lease acquire(const std::optional<std::string>& kind, std::stop_token stop);

  // Takes a member out of the pool; waiting checks go to the others. Refused (false, the member
  // stays) when it is the last live member: a host with one GPU behaves as it always did.
  bool retire(int ordinal, const std::string& why);

  // The kinds with a live member, in the order of their first member.
  std::vector<std::string> kinds() const;
  // Live members of `kind` (any kind when nullopt).
  int live(const std::optional<std::string>& kind = std::nullopt) const;
  std::vector<PoolMemberState> state() const;
  const PoolMember& primary() const { return states_.front().member; }

 private:
  void release(int ordinal);

  mutable std::mutex mutex_;
  std::condition_variable_any changed_;
  std::vector<PoolMemberState> states_;  // by ordinal
};

}  // namespace hone::eval
