/* Bench program: a store-buffering cycle. Thread i (0..N-1) writes its own
 * x[i] and then reads its neighbour's x[(i+1) % N], ROUNDS times (default
 * 1), writing the round number each time. Under SC some thread must see its
 * neighbour's first store, so not every first read returns 0; under TSO and
 * PSO every store may still be buffered while all threads read: the
 * assertion fails unless FENCED puts a fence between each store and the
 * load after it. N threads besides the checker (default 4).
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#include "fence.h"

#ifndef N
#define N 4
#endif
#ifndef ROUNDS
#define ROUNDS 1
#endif

int x[N];
int first[N]; /* what thread i's first read returned */

static void *sb_thread(void *arg) {
  const int i = (int)(long)arg;
  for (int r = 1; r <= ROUNDS; r++) {
    x[i] = r;
    FENCE();
    const int seen = x[(i + 1) % N];
    if (r == 1) first[i] = seen;
  }
  return NULL;
}

TSOCHECK void sbchain_check(void) {
  pthread_t t[N];
  for (long i = 0; i < N; i++) pthread_create(&t[i], NULL, sb_thread, (void *)i);
  for (int i = 0; i < N; i++) pthread_join(t[i], NULL);
  int zeros = 0;
  for (int i = 0; i < N; i++) zeros += first[i] == 0;
  assert(zeros < N);
}
