// support/hash.h: SHA-256 (OpenSSL) for content-addressed keys: the build cache, kernel and task
// hashes in verdicts, the store. Thread-safe; each Sha256 object is used by one thread.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace hone {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  // Adds a length-prefixed field, so ("ab","c") and ("a","bc") hash differently.
  Sha256& field(std::string_view bytes);
  Sha256& raw(std::string_view bytes);
  std::string hex();  // finishes; the object is spent afterwards

 private:
  struct State;
  std::unique_ptr<State> state_;
};

std::string sha256_hex(std::string_view bytes);

// Reads a whole file; throws std::runtime_error naming the file when it cannot.
std::string read_file(const std::filesystem::path& path);

// Writes a file atomically (temp file in the same folder, then rename).
void write_file_atomic(const std::filesystem::path& path, std::string_view bytes);

}  // namespace hone
