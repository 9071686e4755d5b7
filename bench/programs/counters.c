/* Bench program: racy per-thread counters. Each thread repeatedly reads a
 * shared counter and writes back an incremented value with no lock, so many
 * updates can be lost; the assertion only checks the weakest guarantee.
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#ifndef THREADS
#define THREADS 3
#endif
#ifndef ROUNDS
#define ROUNDS 3
#endif

int counter;

static void *bump(void *arg) {
  for (int i = 0; i < ROUNDS; i++) counter = counter + 1;
  return NULL;
}

TSOCHECK void counters_check(void) {
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, bump, NULL);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  assert(counter >= 1 && counter <= THREADS * ROUNDS);
}
