// Tests of the SHA-256 helpers against known digests, and of the atomic file write.
#include "support/hash.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

namespace hone {
namespace {

TEST(Sha256, KnownDigest) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, FieldsAreDelimited) {
  EXPECT_NE(Sha256().field("ab").field("c").hex(), Sha256().field("a").field("bc").hex());
}

TEST(Files, AtomicWriteThenRead) {
  auto dir = std::filesystem::temp_directory_path() / ("hone-hash-test-" + std::to_string(::getpid()));
  auto f = dir / "sub" / "x.txt";
  write_file_atomic(f, "content");
  EXPECT_EQ(read_file(f), "content");
  EXPECT_THROW(read_file(dir / "missing"), std::runtime_error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hone
