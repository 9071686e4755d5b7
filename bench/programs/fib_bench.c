/* Bench program: "fib_bench" (SV-COMP pthreads, TACAS'15 benchmarks): two
 * threads add each other's counter NUM times with plain accesses. GenMC
 * reports 218,243 executions under SC and 525,630 under TSO for NUM = 5.
 * -DBOUND=B adds SV-COMP's check that neither counter reaches B (the
 * "false" variant: NUM = 5, B = 144 fails in one interleaving only).
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#ifndef NUM
#define NUM 5
#endif

int i = 1, j = 1;

static void *t1(void *arg) {
  for (int k = 0; k < NUM; k++) i += j;
  return NULL;
}
static void *t2(void *arg) {
  for (int k = 0; k < NUM; k++) j += i;
  return NULL;
}

TSOCHECK void fib_bench(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, t1, NULL);
  pthread_create(&b, NULL, t2, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
#ifdef BOUND
  assert(i < BOUND && j < BOUND);
#endif
}
