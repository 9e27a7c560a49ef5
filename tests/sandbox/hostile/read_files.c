/* tests/sandbox/hostile/read_files.c: tries to read each path given (canaries in $HOME and the
   workspace, /etc/shadow, another process's environment). Prints READ path: first bytes, or
   DENIED path: the error. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int hostile_main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    int fd = open(argv[i], O_RDONLY);
    if (fd < 0) {
      printf("DENIED %s: %s\n", argv[i], strerror(errno));
      continue;
    }
    char buf[128] = {0};
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0) {
      printf("DENIED %s: %s\n", argv[i], strerror(errno));
      continue;
    }
    for (ssize_t k = 0; k < n; ++k)
      if (buf[k] == '\n' || buf[k] == '\0') buf[k] = ' ';
    printf("READ %s: %s\n", argv[i], buf);
  }
  fflush(stdout);
  return 0;
}
