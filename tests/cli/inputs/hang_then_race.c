/* A waiter nobody releases (non-termination in every execution) next to a
 * lost update that SC shows only with one preemption: preemption rounds go
 * on past the hang of round 0 and find the assertion failure in round 1. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int counter;
volatile int go;

static void *worker(void *arg) {
  counter = counter + 1;
  return 0;
}

static void *waiter(void *arg) {
  while (!go)
    ;
  return 0;
}

TSOCHECK_WITH("model=sc") void hang_then_race(void) {
  pthread_t a, b, c;
  pthread_create(&c, 0, waiter, 0);
  pthread_create(&a, 0, worker, 0);
  pthread_create(&b, 0, worker, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(counter == 2);
}
