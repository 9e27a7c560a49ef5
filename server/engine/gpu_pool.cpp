// engine/gpu_pool.cpp: the engine's pools of judges: which GPUs `--gpus` selects (one judge per
// GPU, a queue per GPU kind), the CPU's judge, and fake GPUs for tests ($HONE_FAKE_GPUS: "3", or
// names such as "Fake A,Fake A,Fake B": CPU judges that the pool treats as GPUs of those kinds).
#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "engine/engine_impl.h"

namespace hone {
namespace {

using nlohmann::json;

// $HONE_FAKE_GPUS as names: a count gives that many "Fake GPU"s; empty: none.
std::vector<std::string> fake_gpu_names() {
  const char* value = std::getenv("HONE_FAKE_GPUS");
  if (!value || !*value) return {};
  std::string text = value;
  int count = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (ec == std::errc() && end == text.data() + text.size()) return std::vector<std::string>(static_cast<std::size_t>(std::max(count, 0)), "Fake GPU");
  std::vector<std::string> names;
  for (std::size_t at = 0; at <= text.size();) {
    std::size_t comma = text.find(',', at);
    if (comma == std::string::npos) comma = text.size();
    std::string name = text.substr(at, comma - at);
    if (!name.empty()) names.push_back(name);
    at = comma + 1;
  }
  return names;
}

// The indices a selection picks out of `available` devices; throws EngineError(Usage).
std::vector<int> selected_indices(const GpuSelection& sel, int primary, int available, const char* what) {
  std::vector<int> out;
  switch (sel.mode) {
    case GpuSelection::Mode::One: out = {primary}; break;
    case GpuSelection::Mode::All:
      for (int i = 0; i < available; ++i) out.push_back(i);
      break;
    case GpuSelection::Mode::Count:
      if (sel.count > available)
        throw EngineError(EngineError::Kind::Usage, "--gpus " + std::to_string(sel.count) + ": only " +
                                                        std::to_string(available) + " " + what + " visible");
      for (int i = 0; i < sel.count; ++i) out.push_back(i);
      break;
    case GpuSelection::Mode::List: out = sel.indices; break;
  }
  for (int i : out)
    if (i < 0 || i >= available)
      throw EngineError(EngineError::Kind::Usage, "no GPU " + std::to_string(i) + " here (" + std::to_string(available) +
                                                      " " + what + " visible)");
  return out;
}

PoolMemberInfo info(const eval::PoolMemberState& s) {
  PoolMemberInfo i;
  i.device = s.member.device.name();
  i.index = s.member.index;
  i.kind = s.member.kind;
  i.uuid = s.member.uuid;
  i.retired = s.retired;
  i.why = s.why;
  i.busy = s.busy;
  i.checks = s.checks;
  if (auto h = s.member.slot->known_hello(); h && h->contains("pid")) i.judge_pid = h->value("pid", 0);
  return i;
}

}  // namespace

std::optional<GpuSelection> GpuSelection::parse(std::string_view text) {
  GpuSelection s;
  if (text.empty()) return s;
  if (text == "all") {
    s.mode = Mode::All;
    return s;
  }
  std::vector<int> numbers;
  for (std::size_t at = 0; at <= text.size();) {
    std::size_t comma = text.find(',', at);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view part = text.substr(at, comma - at);
    int n = -1;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), n);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() || n < 0) return std::nullopt;
    numbers.push_back(n);
    at = comma + 1;
  }
  if (text.find(',') == std::string_view::npos) {
    if (numbers[0] < 1) return std::nullopt;
    s.mode = Mode::Count;
    s.count = numbers[0];
    return s;
  }
  s.mode = Mode::List;
  s.indices = numbers;
  return s;
}

std::string GpuSelection::text() const {
  switch (mode) {
    case Mode::One: return "";
    case Mode::All: return "all";
    case Mode::Count: return std::to_string(count);
    case Mode::List: break;
  }
  std::string t;
  for (int i : indices) t += (t.empty() ? "" : ",") + std::to_string(i);
  return t;
}

eval::DevicePool& Engine::Impl::pool(Device device, const CallContext& ctx) {
  const std::string key(device.kind_name());
  std::lock_guard lock(pool_mutex_);
  if (auto found = pools_.find(key); found != pools_.end()) return *found->second;
  std::vector<eval::PoolMember> members;
  if (device.is_cuda()) {
    const json devices = hello(gpu(), ctx).value("devices", json::array());
    for (int i : selected_indices(options.gpus, options.gpu_index, static_cast<int>(devices.size()), "GPU(s)")) {
      // The primary judge's hello describes every GPU: the others' judges start on first use.
      protocol::DeviceFacts facts;
      try {
        facts = devices[static_cast<std::size_t>(i)].get<protocol::DeviceFacts>();
      } catch (const std::exception& e) {
        throw EngineError(EngineError::Kind::Internal, "the eval worker described GPU " + std::to_string(i) + " badly: " + e.what());
      }
      eval::PoolMember m;
      m.device = Device::cuda(i);
      m.kind = facts.name;
      m.index = i;
      m.uuid = facts.uuid;
      m.slot = slot_for(m.device.name(), m.device);
      members.push_back(std::move(m));
    }
  } else if (std::vector<std::string> fakes = fake_gpu_names(); !fakes.empty()) {
    for (int i : selected_indices(options.gpus, 0, static_cast<int>(fakes.size()), "fake GPU(s) ($HONE_FAKE_GPUS)")) {
      eval::PoolMember m;
      m.device = Device::cpu();
      m.kind = fakes[static_cast<std::size_t>(i)];
      m.index = i;
      m.uuid = "FAKE-" + std::to_string(i);
      m.slot = slot_for(members.empty() ? std::string("cpu") : "cpu#" + std::to_string(i), Device::cpu());
      members.push_back(std::move(m));
    }
  } else {
    eval::PoolMember m;
    m.device = Device::cpu();
    m.kind = device_context(Device::cpu(), ctx).name;
    m.slot = slot_for("cpu", Device::cpu());
    members.push_back(std::move(m));
  }
  auto& made = pools_[key];
  made = std::make_unique<eval::DevicePool>(std::move(members));
  return *made;
}

eval::DeviceContext Engine::Impl::member_context(const eval::PoolMember& member, const CallContext& ctx) {
  eval::DeviceContext dc = device_context(member.device, ctx);
  dc.name = member.kind;  // the baseline cache's key: measured per kind, never mixed
  return dc;
}

int Engine::pool_width(DeviceKind device, const CallContext& ctx) {
  return impl_->pool(impl_->device_for(device, ctx), ctx).live();
}

std::vector<std::string> Engine::gpu_kinds(DeviceKind device, const CallContext& ctx) {
  return impl_->pool(impl_->device_for(device, ctx), ctx).kinds();
}

std::vector<PoolMemberInfo> Engine::pool_state(DeviceKind device, const CallContext& ctx) {
  std::vector<PoolMemberInfo> out;
  for (const auto& s : impl_->pool(impl_->device_for(device, ctx), ctx).state()) out.push_back(info(s));
  return out;
}

}  // namespace hone
