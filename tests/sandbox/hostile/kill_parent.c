/* tests/sandbox/hostile/kill_parent.c: tries to kill its parent, the pids given (the real parent
   outside, a sentinel process of the same user), then every process it may signal. Prints each
   attempt's result, then SURVIVED. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void try_kill(const char* what, pid_t pid) {
  int rc = kill(pid, SIGKILL);
  printf("kill(%s=%d): %s\n", what, (int)pid, rc == 0 ? "sent" : strerror(errno));
}

int hostile_main(int argc, char** argv) {
  try_kill("parent", getppid());
  for (int i = 1; i < argc; ++i) try_kill(argv[i], (pid_t)atoi(argv[i]));
  fflush(stdout);
  try_kill("everyone", -1);
  printf("SURVIVED\n");
  fflush(stdout);
  return 0;
}
