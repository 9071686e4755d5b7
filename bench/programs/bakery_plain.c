/* Bench program: Lamport's bakery for N threads (default 3), plain (non-atomic)
 * volatile ints, no fences. A thread takes a ticket one larger than every ticket it sees
 * (choosing[i] brackets that), then waits for every thread with a smaller
 * (ticket, id). Under TSO/PSO the ticket and `choosing[i] = 0` can still be
 * buffered while the thread reads the others', so two threads enter. A shared
 * in-section counter catches it. SC: safe. -DN=2 for two threads; each
 * thread enters ROUNDS times (default 1).
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#ifndef N
#define N 3
#endif
#ifndef ROUNDS
#define ROUNDS 1
#endif

volatile int choosing[N];
volatile int number[N];
volatile int inside;

static void *worker(void *arg) {
  const int i = (int)(long)arg;
  for (int round = 0; round < ROUNDS; round++) {
  choosing[i] = 1;
  int max = 0;
  for (int k = 0; k < N; k++)
    if (number[k] > max) max = number[k];
  number[i] = max + 1;
  choosing[i] = 0;
  for (int j = 0; j < N; j++) {
    if (j == i) continue;
    while (choosing[j])
      ;
    while (number[j] != 0 && (number[j] < number[i] || (number[j] == number[i] && j < i)))
      ;
  }
  inside = inside + 1; /* critical section */
  assert(inside == 1);
  inside = inside - 1;
  number[i] = 0;
  }
  return NULL;
}

TSOCHECK void bakery_plain(void) {
  pthread_t t[N];
  for (long i = 0; i < N; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < N; i++) pthread_join(t[i], NULL);
}
