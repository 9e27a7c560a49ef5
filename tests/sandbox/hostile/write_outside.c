/* tests/sandbox/hostile/write_outside.c: tries to create (or overwrite) each path given. Prints
   WROTE path or DENIED path: the error. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int hostile_main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    int fd = open(argv[i], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
      printf("DENIED %s: %s\n", argv[i], strerror(errno));
      continue;
    }
    const char msg[] = "pwned\n";
    ssize_t n = write(fd, msg, sizeof msg - 1);
    close(fd);
    if (n > 0)
      printf("WROTE %s\n", argv[i]);
    else
      printf("DENIED %s: %s\n", argv[i], strerror(errno));
  }
  fflush(stdout);
  return 0;
}
