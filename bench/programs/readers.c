/* Bench program: "readers" — one writer and N readers of one location.
 * Each reader reads the initial value or the write: 2^N executions
 * (GenMC's synthetic benchmark of this shape reports 8,192 for N = 13).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

#ifndef N
#define N 13
#endif

atomic_int x;

static void *writer(void *arg) {
  atomic_store_explicit(&x, 42, memory_order_relaxed);
  return NULL;
}
static void *reader(void *arg) {
  (void)atomic_load_explicit(&x, memory_order_relaxed);
  return NULL;
}

TSOCHECK void readers(void) {
  pthread_t w, r[N];
  pthread_create(&w, NULL, writer, NULL);
  for (int i = 0; i < N; i++) pthread_create(&r[i], NULL, reader, NULL);
  pthread_join(w, NULL);
  for (int i = 0; i < N; i++) pthread_join(r[i], NULL);
}
