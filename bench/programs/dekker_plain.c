/* Bench program: Dekker's mutual exclusion for two threads, plain (non-atomic)
 * volatile ints, no fences (-DFENCED: repaired, safe under every model). A thread raises its flag and then reads the other's: under TSO/PSO
 * that read can overtake the buffered flag store, both threads read 0 and
 * enter. A shared in-section counter catches it. Each thread enters ROUNDS
 * times (default 2). SC: safe. bench/first_bug.sh measures the executions
 * explored before the violation.
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#include "fence.h"

#ifndef ROUNDS
#define ROUNDS 2
#endif

volatile int want0, want1;
volatile int turn;
volatile int inside;

static void *worker(void *arg) {
  const int i = (int)(long)arg;
  volatile int *mine = i == 0 ? &want0 : &want1;
  volatile int *other = i == 0 ? &want1 : &want0;
  for (int round = 0; round < ROUNDS; round++) {
    *mine = 1;
    FENCE();
    while (*other) {
      if (turn != i) {
        *mine = 0;
        while (turn != i)
          ;
        *mine = 1;
        FENCE();
      }
    }
    inside = inside + 1; /* critical section */
    assert(inside == 1);
    inside = inside - 1;
    FENCE();
    turn = 1 - i;
    FENCE();
    *mine = 0;
  }
  return NULL;
}

TSOCHECK void dekker_plain(void) {
  pthread_t t0, t1;
  pthread_create(&t0, NULL, worker, (void *)0L);
  pthread_create(&t1, NULL, worker, (void *)1L);
  pthread_join(t0, NULL);
  pthread_join(t1, NULL);
}
