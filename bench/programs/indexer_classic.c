/* Bench program: "indexer" as in GenMC's and Nidhugg's benchmark sets
 * (Flanagan & Godefroid, POPL'05): N threads insert 4 messages each into a
 * 128-slot hash table with compare-and-swap; collisions start at 12 threads.
 * GenMC reports 4,096 executions for N = 15.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

#ifndef N
#define N 15
#endif
#define SIZE 128
#define MAX 4

atomic_int table[SIZE];

static void *indexer(void *arg) {
  int tid = (int)(long)arg;
  for (int m = 1; m <= MAX; m++) {
    int w = m * 11 + tid;
    int h = (w * 7) % SIZE;
    int expected = 0;
    while (!atomic_compare_exchange_strong_explicit(&table[h], &expected, w, memory_order_relaxed,
                                                    memory_order_relaxed)) {
      expected = 0;
      h = (h + 1) % SIZE;
    }
  }
  return NULL;
}

TSOCHECK void indexer_classic(void) {
  pthread_t t[N];
  for (long i = 0; i < N; i++) pthread_create(&t[i], NULL, indexer, (void *)i);
  for (int i = 0; i < N; i++) pthread_join(t[i], NULL);
}
