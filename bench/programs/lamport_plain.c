/* Bench program: Lamport's fast mutual exclusion ("A fast mutual exclusion
 * algorithm", 1987) for two threads with ids 1 and 2, plain (non-atomic)
 * volatile ints, no fences (-DFENCED: repaired, safe under every model).
 * A thread announces itself in b[i], writes x then reads y (and writes y
 * then reads x): under TSO/PSO those reads can overtake the buffered writes
 * and both threads enter. A shared in-section counter catches it. Each
 * thread enters ROUNDS times (default 1). SC: safe.
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#include "fence.h"

#ifndef ROUNDS
#define ROUNDS 1
#endif

volatile int b1, b2; /* b[i]: thread i wants in */
volatile int x, y;
volatile int inside;

static void *worker(void *arg) {
  const int i = (int)(long)arg;
  volatile int *mine = i == 1 ? &b1 : &b2;
  volatile int *other = i == 1 ? &b2 : &b1;
  for (int round = 0; round < ROUNDS; round++) {
  for (;;) {
    *mine = 1;
    x = i;
    FENCE();
    if (y != 0) { /* contention: back off until the lock is free */
      *mine = 0;
      while (y != 0)
        ;
      continue;
    }
    y = i;
    FENCE();
    if (x != i) { /* another thread wrote x after us: slow path */
      *mine = 0;
      FENCE();
      while (*other)
        ;
      if (y != i) {
        while (y != 0)
          ;
        continue;
      }
    }
    break;
  }
  inside = inside + 1; /* critical section */
  assert(inside == 1);
  inside = inside - 1;
  FENCE();
  y = 0;
  FENCE();
  *mine = 0;
  }
  return NULL;
}

TSOCHECK void lamport_plain(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, worker, (void *)1L);
  pthread_create(&t2, NULL, worker, (void *)2L);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
}
