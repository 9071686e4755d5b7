/* Bench program: "lastzero" (Abdulla et al.) — a reader scans an array from
 * the end for the last zero while N writers each set array[j] from
 * array[j-1]. GenMC and Nidhugg report 147,456 executions for N = 15.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

#ifndef N
#define N 15
#endif

atomic_int array[N + 1];

static void *scanner(void *arg) {
  for (int i = N; atomic_load_explicit(&array[i], memory_order_acquire) != 0; i--)
    ;
  return NULL;
}
static void *writer(void *arg) {
  int j = (int)(long)arg;
  int v = atomic_load_explicit(&array[j - 1], memory_order_acquire);
  atomic_store_explicit(&array[j], v + 1, memory_order_release);
  return NULL;
}

TSOCHECK void lastzero(void) {
  pthread_t r, w[N + 1];
  pthread_create(&r, NULL, scanner, NULL);
  for (long j = 1; j <= N; j++) pthread_create(&w[j], NULL, writer, (void *)j);
  pthread_join(r, NULL);
  for (int j = 1; j <= N; j++) pthread_join(w[j], NULL);
}
