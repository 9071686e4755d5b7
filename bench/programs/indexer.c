/* Bench program: "indexer" (Flanagan & Godefroid, POPL'05). Threads insert
 * messages into a shared hash table with compare-and-swap, probing on
 * collisions. The number of executions grows quickly with the number of
 * threads and insertions per thread.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

#ifndef THREADS
#define THREADS 3
#endif
#ifndef PER_THREAD
#define PER_THREAD 3
#endif
#define SIZE 16

atomic_int table[SIZE];

static int hash(int w) { return (w * 7) % 4; } /* few buckets: many collisions */

static void *indexer(void *arg) {
  int tid = (int)(long)arg;
  for (int m = 0; m < PER_THREAD; m++) {
    int w = (m + 1) * 11 + tid;
    int h = hash(w);
    int expected = 0;
    while (!atomic_compare_exchange_strong(&table[h], &expected, w)) {
      expected = 0;
      h = (h + 1) % SIZE;
    }
  }
  return NULL;
}

TSOCHECK void indexer_check(void) {
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, indexer, (void *)i);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  int used = 0;
  for (int i = 0; i < SIZE; i++) used += atomic_load(&table[i]) != 0;
  assert(used == THREADS * PER_THREAD);
}
