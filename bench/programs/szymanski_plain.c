/* Bench program: Szymanski's mutual exclusion for two threads in the shape of
 * the TACAS'15 benchmark: plain (non-atomic) ints, no fences (-DFENCED:
 * repaired, safe under every model),
 * busy waits written as backward gotos, and a shared `x` each thread writes
 * and reads back in the critical section. Each thread enters ROUNDS times
 * (default 2). SC: safe; TSO/PSO: the flag stores that announce progress
 * (1 -> 3 -> 4) stay buffered while the thread reads the other's flag, both
 * threads enter, and one reads the other's x. bench/fences.sh measures time
 * to the verdict and to the fence fix on it.
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#include "fence.h"

#ifndef ROUNDS
#define ROUNDS 2
#endif

volatile int flag1, flag2;
volatile int x;

static void *thr1(void *arg) {
  for (int round = 0; round < ROUNDS; round++) {
    int seen;
    flag1 = 1; FENCE();
  wait_door:
    if (flag2 >= 3) goto wait_door;
    flag1 = 3; FENCE();
    if (flag2 == 1) {
      flag1 = 2; FENCE();
    wait_close:
      if (flag2 != 4) goto wait_close;
    }
    flag1 = 4; FENCE();
    /* the lower id does not wait for anyone here */
    x = 0; /* critical section */
    assert(x <= 0);
    seen = flag2; /* exit: let a thread in the doorway through */
    while (2 <= seen && flag2 <= 3) seen = flag2;
    FENCE();
    flag1 = 0;
  }
  return NULL;
}

static void *thr2(void *arg) {
  for (int round = 0; round < ROUNDS; round++) {
    int seen;
    flag2 = 1; FENCE();
  wait_door:
    if (flag1 >= 3) goto wait_door;
    flag2 = 3; FENCE();
    if (flag1 == 1) {
      flag2 = 2; FENCE();
    wait_close:
      if (flag1 != 4) goto wait_close;
    }
    flag2 = 4; FENCE();
  wait_lower: /* let the lower id finish first */
    if (flag1 >= 2) goto wait_lower;
    x = 1; /* critical section */
    assert(x >= 1);
    seen = flag1;
    while (2 <= seen && flag1 <= 3) seen = flag1;
    FENCE();
    flag2 = 0;
  }
  return NULL;
}

TSOCHECK void szymanski_plain(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, thr1, NULL);
  pthread_create(&b, NULL, thr2, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}
