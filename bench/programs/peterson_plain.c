/* Bench program: Peterson's lock generalised to N threads (the filter lock,
 * default N = 2), plain (non-atomic) volatile ints, no fences (-DFENCED:
 * repaired, safe under every model). At each level a thread announces
 * its level and makes itself the victim, then reads the others' levels:
 * under TSO/PSO those reads can overtake the buffered stores and two threads
 * pass a level together. A shared in-section counter catches it. Each thread
 * enters ROUNDS times (default 1). SC: safe. bench/first_bug.sh measures the
 * executions explored before the violation.
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#include "fence.h"

#ifndef N
#define N 2
#endif
#ifndef ROUNDS
#define ROUNDS 1
#endif

volatile int level[N];
volatile int victim[N];
volatile int inside;

static int contended(int i, int l) {
  for (int k = 0; k < N; k++)
    if (k != i && level[k] >= l) return 1;
  return 0;
}

static void *worker(void *arg) {
  const int i = (int)(long)arg;
  for (int round = 0; round < ROUNDS; round++) {
    for (int l = 1; l < N; l++) {
      level[i] = l;
      FENCE();
      victim[l] = i;
      FENCE();
      while (victim[l] == i && contended(i, l))
        ;
    }
    inside = inside + 1; /* critical section */
    assert(inside == 1);
    inside = inside - 1;
    FENCE();
    level[i] = 0;
  }
  return NULL;
}

TSOCHECK void peterson_plain(void) {
  pthread_t t[N];
  for (long i = 0; i < N; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < N; i++) pthread_join(t[i], NULL);
}
