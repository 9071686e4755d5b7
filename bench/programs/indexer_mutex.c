/* Bench program: the indexer (bench/programs/indexer_classic.c) with a
 * pthread mutex instead of compare-and-swap: each insertion locks, probes
 * for a free slot, writes it and unlocks. Collisions start at 12 threads.
 * Lock acquisitions that read a held mutex must not create blocked
 * executions: `blocked` in the JSON result should stay 0.
 */
#include <pthread.h>
#include <tsocheck.h>

#ifndef N
#define N 13
#endif
#define SIZE 128
#define MAX 4

int table[SIZE];
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *indexer(void *arg) {
  int tid = (int)(long)arg;
  for (int k = 1; k <= MAX; k++) {
    int w = k * 11 + tid;
    int h = (w * 7) % SIZE;
    pthread_mutex_lock(&m);
    while (table[h] != 0) h = (h + 1) % SIZE;
    table[h] = w;
    pthread_mutex_unlock(&m);
  }
  return NULL;
}

TSOCHECK void indexer_mutex(void) {
  pthread_t t[N];
  for (long i = 0; i < N; i++) pthread_create(&t[i], NULL, indexer, (void *)i);
  for (int i = 0; i < N; i++) pthread_join(t[i], NULL);
}
