/* tests/sandbox/hostile/sleep_forever.c: leaves an escapee (a grandchild in its own session that
   appends a line to argv[1] every 50 ms) and then sleeps past any deadline. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int hostile_main(int argc, char** argv) {
  if (argc < 2) return 2;
  fflush(stdout);
  if (fork() == 0) {
    setsid();
    if (fork() == 0) {
      for (;;) {
        int fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
          if (write(fd, "alive\n", 6) < 0) return 1;
          close(fd);
        }
        usleep(50000);
      }
    }
    _exit(0);
  }
  printf("SLEEPING\n");
  fflush(stdout);
  for (;;) sleep(1000);
}
