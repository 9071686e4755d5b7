/* Bench program: the PostgreSQL latch handshake of the TACAS'15 benchmark
 * set ("pgsql"), written for tsocheck. Two workers pass a token back and
 * forth: a worker sleeps until its latch is set (a busy wait here), resets
 * it, and when its flag says the token is its own, hands it on by setting
 * the other worker's flag and then its latch. Whoever finds its latch set
 * must find its flag set too. Worker 0 holds the token at the start; each
 * worker takes it ROUNDS times (default 2). SC and TSO keep the two stores
 * of a hand-over in order: safe. PSO may flush the latch before the flag:
 * the assertion fails unless FENCED puts a fence between them.
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#include "fence.h"

#ifndef ROUNDS
#define ROUNDS 2
#endif

int latch[2] = {1, 0};
int flag[2] = {1, 0};

static void *worker(void *arg) {
  const int i = (int)(long)arg, j = 1 - i;
  for (int round = 0; round < ROUNDS; round++) {
    while (!latch[i]) /* WaitLatch */
      ;
    assert(flag[i]); /* a set latch comes with the token */
    latch[i] = 0;    /* ResetLatch */
    if (flag[i]) {
      flag[i] = 0;
      flag[j] = 1;
      FENCE();
      latch[j] = 1; /* SetLatch */
    }
  }
  return NULL;
}

TSOCHECK void pgsql_check(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, worker, (void *)0L);
  pthread_create(&b, NULL, worker, (void *)1L);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}
