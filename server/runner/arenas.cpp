// runner/arenas.cpp: mapping memfd and VMM arenas; resolving and bounds-checking BUFs.
#include "runner/arenas.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "runner/wire.h"

namespace hone::runner {
namespace {

struct DtypeName {
  const char* name;
  hone::DType dtype;
  std::size_t itemsize;
};
constexpr DtypeName kDtypes[] = {
    {"float32", hone::DType::Float32, 4}, {"float16", hone::DType::Float16, 2}, {"bfloat16", hone::DType::BFloat16, 2},
    {"float64", hone::DType::Float64, 8}, {"int32", hone::DType::Int32, 4},     {"int64", hone::DType::Int64, 8},
    {"int16", hone::DType::Int16, 2},     {"int8", hone::DType::Int8, 1},       {"uint8", hone::DType::UInt8, 1},
    {"bool", hone::DType::Bool, 1},
};

std::string arena_key(const nlohmann::json& id, const std::string& where) {
  if (!id.is_number_integer() && !id.is_string()) bad_request(where + ": \"arena\" must be an integer or a string");
  return dump(id);
}

std::vector<std::int64_t> read_dims(const nlohmann::json& list, const std::string& what) {
  if (!list.is_array()) bad_request(what + " must be an array");
  if (list.size() > static_cast<std::size_t>(hone::kMaxDims))
    bad_request(what + " has " + std::to_string(list.size()) + " dimensions; the raw form supports up to " +
                std::to_string(hone::kMaxDims));
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::int64_t v = read_int(list[i], what + "[" + std::to_string(i) + "]");
    if (v < 0) bad_request(what + "[" + std::to_string(i) + "] is negative");
    out.push_back(v);
  }
  return out;
}

// The last byte past the tensor's elements, relative to its data pointer; false on overflow.
bool extent_bytes(const TensorView& t, std::size_t& extent) {
  if (t.numel() == 0) {
    extent = 0;
    return true;
  }
  std::uint64_t last = 0;
  for (int i = 0; i < t.ndim; ++i) {
    std::uint64_t step = 0;
    if (__builtin_mul_overflow(static_cast<std::uint64_t>(t.sizes[i] - 1), static_cast<std::uint64_t>(t.strides[i]),
                               &step) ||
        __builtin_add_overflow(last, step, &last))
      return false;
  }
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(last + 1, static_cast<std::uint64_t>(t.itemsize), &bytes)) return false;
  extent = static_cast<std::size_t>(bytes);
  return true;
}

}  // namespace

std::int64_t TensorView::numel() const {
  std::int64_t n = 1;
  for (int i = 0; i < ndim; ++i) n *= sizes[i];
  return n;
}

bool TensorView::same_layout(const TensorView& other) const {
  if (dtype != other.dtype || ndim != other.ndim) return false;
  for (int i = 0; i < ndim; ++i)
    if (sizes[i] != other.sizes[i] || (sizes[i] > 1 && strides[i] != other.strides[i])) return false;
  return true;
}

bool dtype_from_name(const std::string& name, hone::DType& dtype, std::size_t& itemsize) {
  for (const auto& d : kDtypes)
    if (name == d.name) {
      dtype = d.dtype;
      itemsize = d.itemsize;
      return true;
    }
  return false;
}

ArenaTable::~ArenaTable() {
  for (auto& [key, owned] : arenas_) release(owned);
}

void ArenaTable::release(Owned& owned) {
  if (owned.arena.registered) backend_.unregister_host(owned.arena.host);
  if (owned.arena.host) ::munmap(owned.arena.host, owned.arena.bytes);
  owned.imported.reset();
}

void ArenaTable::map(const nlohmann::json& request, std::vector<UniqueFd>& fds) {
  const nlohmann::json& list = require_array(request, "arenas", "map");
  if (list.size() != fds.size())
    bad_request("map: " + std::to_string(list.size()) + " arenas but " + std::to_string(fds.size()) +
                " file descriptors came with the message (one per arena, in order)");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = "map: arenas[" + std::to_string(i) + "]";
    const std::string key = arena_key(require(list[i], "arena", where), where);
    if (arenas_.count(key) || !seen.insert(key).second) bad_request(where + ": arena " + key + " is already mapped");
    const std::string kind = require(list[i], "kind", where).is_string() ? list[i]["kind"].get<std::string>() : "";
    if (kind != "host" && kind != "cuda") bad_request(where + ": \"kind\" must be \"host\" or \"cuda\"");
    if (read_int(require(list[i], "bytes", where), where + ".bytes") <= 0) bad_request(where + ": \"bytes\" must be > 0");
  }
  for (std::size_t i = 0; i < list.size(); ++i) map_one(list[i], fds[i].get(), "map: arenas[" + std::to_string(i) + "]");
}

void ArenaTable::map_one(const nlohmann::json& spec, int fd, const std::string& where) {
  Owned owned;
  Arena& a = owned.arena;
  a.kind = spec["kind"].get<std::string>();
  a.bytes = static_cast<std::size_t>(read_int(spec["bytes"], where + ".bytes"));
  const nlohmann::json* reg = find(spec, "register");
  const bool want_register = reg && read_bool(*reg, where + ".register");
  if (a.kind == "host") {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
      bad_request(where + ": the host arena's descriptor is not a memfd or file");
    if (static_cast<std::uint64_t>(st.st_size) < a.bytes)
      bad_request(where + ": the memfd holds " + std::to_string(st.st_size) + " bytes, the arena claims " +
                  std::to_string(a.bytes));
    void* p = ::mmap(nullptr, a.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) bad_request(where + ": mmap of the memfd failed: " + std::strerror(errno));
    a.host = static_cast<unsigned char*>(p);
    a.device = a.host;
    if (want_register && backend_.is_cuda()) {
      try {
        a.device = static_cast<unsigned char*>(backend_.register_host(a.host, a.bytes));
      } catch (...) {
        ::munmap(a.host, a.bytes);
        throw;
      }
      a.registered = true;
    }
  } else {
    owned.imported = backend_.import_vmm(fd, a.bytes);
    a.device = static_cast<unsigned char*>(owned.imported->address());
  }
  arenas_.emplace(dump(spec["arena"]), std::move(owned));
}

TensorView ArenaTable::resolve(const nlohmann::json& buf, const std::string& where) const {
  TensorView t;
  const std::string key = arena_key(require(buf, "arena", where), where);
  auto it = arenas_.find(key);
  if (it == arenas_.end()) bad_request(where + ": arena " + key + " is not mapped (send map first)");
  t.arena = &it->second.arena;
  const nlohmann::json& dtype = require(buf, "dtype", where);
  if (!dtype.is_string() || !dtype_from_name(dtype.get<std::string>(), t.dtype, t.itemsize))
    bad_request(where + ": unknown dtype " + dump(dtype));
  const std::vector<std::int64_t> shape = read_dims(require(buf, "shape", where), where + ".shape");
  t.ndim = static_cast<int>(shape.size());
  std::int64_t expected = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    t.sizes[i] = shape[static_cast<std::size_t>(i)];
    t.strides[i] = expected;
    expected *= std::max<std::int64_t>(t.sizes[i], 1);
  }
  if (const nlohmann::json* strides = find(buf, "strides")) {
    const std::vector<std::int64_t> s = read_dims(*strides, where + ".strides");
    if (s.size() != shape.size()) bad_request(where + ": strides and shape differ in length");
    for (int i = 0; i < t.ndim; ++i) t.strides[i] = s[static_cast<std::size_t>(i)];
  }
  const nlohmann::json* offset_field = find(buf, "offset");
  const std::int64_t offset = offset_field ? read_int(*offset_field, where + ".offset") : 0;
  if (offset < 0 || offset % static_cast<std::int64_t>(t.itemsize) != 0)
    bad_request(where + ": offset " + std::to_string(offset) + " is negative or not a multiple of the element size");
  std::size_t extent = 0;
  if (!extent_bytes(t, extent) || static_cast<std::uint64_t>(offset) + extent > t.arena->bytes)
    bad_request(where + ": the tensor runs past the end of arena " + key + " (" + std::to_string(t.arena->bytes) +
                " bytes)");
  t.data = t.arena->device + offset;
  return t;
}

}  // namespace hone::runner
