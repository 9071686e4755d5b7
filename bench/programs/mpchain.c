/* Bench program: a message-passing chain. Thread 0 writes the data and then
 * raises flag 0; thread i (1..N-1) copies flag i-1 into flag i, ROUNDS times
 * (default 2), so a raised flag travels down the chain while each copy may
 * read an old value; the last thread, seeing its flag raised, asserts that
 * the data came along. SC and TSO keep each thread's stores in order:
 * safe. PSO may flush flag 0 before the data: the assertion fails unless
 * FENCED puts a fence between them. N threads besides the checker (default
 * 4).
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#include "fence.h"

#ifndef N
#define N 4
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif

int data;
int flag[N];

static void *link_thread(void *arg) {
  const int i = (int)(long)arg;
  if (i == 0) {
    data = 1;
    FENCE();
    flag[0] = 1;
    return NULL;
  }
  for (int r = 0; r < ROUNDS; r++) flag[i] = flag[i - 1];
  if (i == N - 1 && flag[i]) assert(data == 1);
  return NULL;
}

TSOCHECK void mpchain_check(void) {
  pthread_t t[N];
  for (long i = 0; i < N; i++) pthread_create(&t[i], NULL, link_thread, (void *)i);
  for (int i = 0; i < N; i++) pthread_join(t[i], NULL);
}
