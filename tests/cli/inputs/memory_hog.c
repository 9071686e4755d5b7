/* Many cheap checks and one that would use far more memory than the limit
   (a stateful search of a state space growing with every step): under a
   memory limit every cheap check has its result, and the hungry one says it
   was stopped at the limit. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int i = 1, j = 1, x;

static void *t1(void *arg) {
  for (int k = 0; k < 60; k++) i += j;
  return NULL;
}
static void *t2(void *arg) {
  for (int k = 0; k < 60; k++) j += i;
  return NULL;
}

TSOCHECK void cheap_first(void) { x = 1; assert(x == 1); }

TSOCHECK_WITH("stateful loop_bound=61")
void hungry(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, t1, NULL);
  pthread_create(&b, NULL, t2, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}

TSOCHECK void cheap_last(void) { x = 2; assert(x == 2); }
