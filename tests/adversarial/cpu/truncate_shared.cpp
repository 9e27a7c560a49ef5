// hone: task=../../../tasks/relu.py
// Tamperer, raw form: truncates every memory file its process shares with the judge (the arenas'
// memfds, found in /proc/self/fd and /proc/self/map_files), so that the judge's own mapping of
// them would fault (SIGBUS) when it copies the outputs out, and the judge would die instead of
// giving a verdict. The judge seals its memfds against shrinking: the truncation fails, and the
// wrong answer it then writes (a copy of x) is found wrong.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "hone.h"

static int truncate_all(const char* folder) {
  DIR* dir = opendir(folder);
  if (!dir) return 0;
  int truncated = 0;
  char path[512], target[512];
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    std::snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
    const ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    if (!std::strstr(target, "hone-arena")) continue;
    const int fd = open(path, O_RDWR);
    if (fd >= 0) {
      truncated += ftruncate(fd, 0) == 0;
      close(fd);
    }
  }
  closedir(dir);
  return truncated;
}

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  const int truncated = truncate_all("/proc/self/fd") + truncate_all("/proc/self/map_files");
  std::fprintf(stderr, "tamper: truncated %d shared memory files\n", truncated);
  if (truncated == 0)
    for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = x.data()[i];
}
