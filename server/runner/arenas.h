// runner/arenas.h: the shared memory the judge maps into a candidate process (the `map` op) and
// the tensors (BUF) that name places in it. Host arenas are memfds mapped shared read-write
// (optionally registered for kernels); cuda arenas are imported VMM allocations. Arenas live as
// long as the process. Owned by the Runner; used on the main thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hone.h"
#include "runner/backend.h"
#include "runner/channel.h"

namespace hone::runner {

struct Arena {
  std::string kind;           // "host" | "cuda"
  std::size_t bytes = 0;
  unsigned char* host = nullptr;    // the host mapping (host arenas), else nullptr
  unsigned char* device = nullptr;  // the address forward and the device use (CPU: the host mapping)
  bool registered = false;
};

// One tensor in an arena (a BUF), checked to lie inside it.
struct TensorView {
  const Arena* arena = nullptr;
  unsigned char* data = nullptr;  // arena->device + offset
  hone::DType dtype = hone::DType::Float32;
  std::size_t itemsize = 4;
  int ndim = 0;
  std::int64_t sizes[hone::kMaxDims] = {};
  std::int64_t strides[hone::kMaxDims] = {};
  std::int64_t numel() const;
  // The host address of data (host arenas), else nullptr.
  unsigned char* host_data() const { return arena->host ? arena->host + (data - arena->device) : nullptr; }
  bool same_layout(const TensorView& other) const;  // dtype, shape and strides
};

// hone::DType from its name ("float32", ...); false when unknown.
bool dtype_from_name(const std::string& name, hone::DType& dtype, std::size_t& itemsize);

class ArenaTable {
 public:
  explicit ArenaTable(Backend& backend) : backend_(backend) {}
  ~ArenaTable();
  ArenaTable(const ArenaTable&) = delete;
  ArenaTable& operator=(const ArenaTable&) = delete;

  // The map op: {"arenas": [{"arena", "kind", "bytes", "register"}]}, one fd each, in order.
  // Checks everything before mapping anything. Throws OpError.
  void map(const nlohmann::json& request, std::vector<UniqueFd>& fds);
  // A BUF {"arena", "offset", "dtype", "shape", "strides"?}; `where` names it in errors.
  TensorView resolve(const nlohmann::json& buf, const std::string& where) const;

 private:
  struct Owned {
    Arena arena;
    std::unique_ptr<ImportedMemory> imported;
  };
  void map_one(const nlohmann::json& spec, int fd, const std::string& where);
  void release(Owned& owned);

  Backend& backend_;
  std::map<std::string, Owned> arenas_;  // by the id's JSON text
};

}  // namespace hone::runner
