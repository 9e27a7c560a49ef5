/* tests/sandbox/hostile/fork_bomb.c: forks until the system refuses (at most argv[1] times); every
   child waits forever. Prints FORKS n STOPPED-BY error, or FORKS n UNSTOPPED. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int hostile_main(int argc, char** argv) {
  long cap = argc > 1 ? atol(argv[1]) : 100000;
  long forks = 0;
  fflush(stdout);
  for (; forks < cap; ++forks) {
    pid_t pid = fork();
    if (pid < 0) {
      printf("FORKS %ld STOPPED-BY %s\n", forks, strerror(errno));
      fflush(stdout);
      return 0;
    }
    if (pid == 0) {
      for (;;) pause();
    }
  }
  printf("FORKS %ld UNSTOPPED\n", forks);
  fflush(stdout);
  return 0;
}
