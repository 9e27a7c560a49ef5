/* tests/sandbox/hostile/env_secrets.c: hunts for a secret (argv[1]) in its own environment, in its
   parent's and pid 1's /proc/<pid>/environ, in every readable /proc/<pid>/environ, and in the
   environ of extra pids given (the real parent, outside). Prints FOUND where, or CLEAN. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char** environ;

static int search_file(const char* path, const char* secret) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  static char buf[1 << 20];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  for (ssize_t i = 0; i < n; ++i)
    if (buf[i] == '\0') buf[i] = '\n';
  buf[n] = '\0';
  if (strstr(buf, secret)) {
    printf("FOUND in %s\n", path);
    return 1;
  }
  return 0;
}

int hostile_main(int argc, char** argv) {
  if (argc < 2) return 2;
  const char* secret = argv[1];
  int found = 0;
  for (char** e = environ; *e; ++e)
    if (strstr(*e, secret) || strncmp(*e, "HONE_LLM_API_KEY=", 17) == 0) {
      printf("FOUND in my environment: %s\n", *e);
      found = 1;
    }
  char path[300];
  snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
  found |= search_file(path, secret);
  found |= search_file("/proc/1/environ", secret);
  DIR* proc = opendir("/proc");
  for (struct dirent* d; proc && (d = readdir(proc));) {
    if (d->d_name[0] < '0' || d->d_name[0] > '9') continue;
    snprintf(path, sizeof path, "/proc/%s/environ", d->d_name);
    found |= search_file(path, secret);
  }
  if (proc) closedir(proc);
  for (int i = 2; i < argc; ++i) {
    snprintf(path, sizeof path, "/proc/%s/environ", argv[i]);
    found |= search_file(path, secret);
  }
  if (!found) printf("CLEAN\n");
  fflush(stdout);
  return 0;
}
