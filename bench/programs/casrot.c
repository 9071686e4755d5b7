/* Bench program: "casrot" — N threads; thread i (1..N) tries one relaxed
 * compare-and-swap of x from i-1 to i, so the successful CASes form a chain
 * 1, 2, ... of some length. GenMC's synthetic benchmark of this shape
 * reports 8,597 executions for N = 9 (2, 5, 14, 43, 144, 523, 2,048 for
 * N = 2..8).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

#ifndef N
#define N 9
#endif

atomic_int x;
int ids[N];

static void *rotate(void *arg) {
  int desired = *(int *)arg, expected = desired - 1;
  atomic_compare_exchange_strong_explicit(&x, &expected, desired, memory_order_relaxed, memory_order_relaxed);
  return NULL;
}

TSOCHECK void casrot(void) {
  pthread_t t[N];
  for (int i = 0; i < N; i++) {
    ids[i] = i + 1;
    pthread_create(&t[i], NULL, rotate, &ids[i]);
  }
  for (int i = 0; i < N; i++) pthread_join(t[i], NULL);
}
