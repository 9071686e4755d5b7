/* Bench program: a test-and-test-and-set lock; N threads each take it M
 * times and increment a plain counter inside. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

#ifndef N
#define N 4
#endif
#ifndef M
#define M 1
#endif

atomic_int lock;
int counter;

static void *worker(void *arg) {
  for (int k = 0; k < M; k++) {
    for (;;) {
      while (atomic_load_explicit(&lock, memory_order_relaxed))
        ;
      if (!atomic_exchange(&lock, 1)) break;
    }
    counter = counter + 1;
    atomic_store_explicit(&lock, 0, memory_order_release);
  }
  return NULL;
}

TSOCHECK void ttas(void) {
  pthread_t t[N];
  for (int i = 0; i < N; i++) pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < N; i++) pthread_join(t[i], NULL);
  assert(counter == N * M);
}
