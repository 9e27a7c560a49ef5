/* tests/sandbox/hostile/allocate.c: allocates and touches 64 MiB blocks without bound (at most
   argv[1] MiB). Prints OOM-SCORE-ADJ n (its /proc/self/oom_score_adj), then ALLOC-FAILED after
   N MiB, or ALLOC-UNSTOPPED N MiB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hostile_main(int argc, char** argv) {
  long cap_mib = argc > 1 ? atol(argv[1]) : 1L << 20;
  long mib = 0;
  FILE* oom = fopen("/proc/self/oom_score_adj", "r");
  int adj = -1;
  if (oom) {
    if (fscanf(oom, "%d", &adj) != 1) adj = -1;
    fclose(oom);
  }
  printf("OOM-SCORE-ADJ %d\n", adj);
  for (; mib < cap_mib; mib += 64) {
    char* block = malloc(64u << 20);
    if (!block) {
      printf("ALLOC-FAILED after %ld MiB\n", mib);
      fflush(stdout);
      return 0;
    }
    memset(block, 1, 64u << 20);
  }
  printf("ALLOC-UNSTOPPED %ld MiB\n", mib);
  fflush(stdout);
  return 0;
}
