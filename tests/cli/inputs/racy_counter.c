/* A lost update: under SC it needs one preemption (a worker switched out
   between its load and its store); under TSO none (the first increment is
   still in the store buffer when the second one reads). */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int counter;

static void *worker(void *arg) {
  counter = counter + 1;
  return NULL;
}

TSOCHECK_WITH("model=sc preemption_bound=0..2") void two_workers(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, worker, NULL);
  pthread_create(&b, NULL, worker, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(counter == 2);
}

/* Five workers: at bound 0 the slack (N-2 = 4) lets the search meet the lost
   update anyway, above the bound. */
TSOCHECK_WITH("model=sc") void five_workers(void) {
  pthread_t t[5];
  for (int i = 0; i < 5; ++i) pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < 5; ++i) pthread_join(t[i], NULL);
  assert(counter == 5);
}
