// tests/runner/kernels/noisy.cpp: a raw-form CPU kernel that prints to stdout (at load and in
// forward, through stdio, iostreams and write(2)) and tries to read stdin; then copies x to out.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "hone.h"

namespace {
struct LoudLoad {
  LoudLoad() { std::printf("{\"id\": 1, \"ok\": true, \"printed_at\": \"load\"}\n"); }
} loud_load;
}  // namespace

void forward(hone::In<float> x, hone::Out<float> out) {
  std::printf("{\"id\": 2, \"ok\": true, \"printed_by\": \"printf\"}\n");
  std::fflush(stdout);
  std::cout << "{\"printed_by\": \"cout\"}" << std::endl;
  const char text[] = "{\"printed_by\": \"write\"}\n";
  if (::write(1, text, sizeof text - 1) < 0) throw hone::Error("write to fd 1 failed");
  char c;
  if (::read(0, &c, 1) > 0) throw hone::Error("read a byte from fd 0: stdin should be /dev/null");
  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = x.data()[i];
}
