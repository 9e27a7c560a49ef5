/* tests/sandbox/hostile/flood.c: argv[1] "stdout": writes to stdout forever; "file PATH": writes
   PATH until the system refuses, then prints FILE-STOPPED at N bytes: error. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int hostile_main(int argc, char** argv) {
  static char chunk[1 << 16];
  memset(chunk, 'x', sizeof chunk);
  if (argc > 2 && strcmp(argv[1], "file") == 0) {
    signal(SIGXFSZ, SIG_IGN);
    int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
      printf("cannot open %s: %s\n", argv[2], strerror(errno));
      return 1;
    }
    long long total = 0;
    for (;;) {
      ssize_t n = write(fd, chunk, sizeof chunk);
      if (n <= 0) break;
      total += n;
    }
    printf("FILE-STOPPED at %lld bytes: %s\n", total, strerror(errno));
    fflush(stdout);
    close(fd);
    return 0;
  }
  for (;;)
    if (write(1, chunk, sizeof chunk) < 0) return 1;
}
