// hone: task=../../../tasks/relu.py
// Tamperer, raw form: finds every memory region its process shares with the judge (the arenas in
// /proc/self/maps) and zeroes them all (its inputs, the timing input sets, the other output
// slots), so that relu of zeros, which it then writes, would be the expected answer if the judge
// read back what it shared. The judge compares with its own private copies.
#include <cstdio>
#include <cstring>

#include "hone.h"

static void zero_shared_memory() {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (!maps) return;
  char line[512];
  while (std::fgets(line, sizeof line, maps)) {
    if (!std::strstr(line, "hone-arena")) continue;
    unsigned long start = 0, end = 0;
    char perms[8] = {};
    if (std::sscanf(line, "%lx-%lx %7s", &start, &end, perms) == 3 && perms[1] == 'w')
      std::memset(reinterpret_cast<void*>(start), 0, end - start);
  }
  std::fclose(maps);
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  zero_shared_memory();
  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = x.data()[i] > 0.f ? x.data()[i] : 0.f;
}
