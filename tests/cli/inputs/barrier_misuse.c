/* pthread_barrier_init of an initialised barrier and pthread_barrier_destroy
   while threads wait on it are memory errors. */
#include <pthread.h>
#include <tsocheck.h>

pthread_barrier_t b;

static void *arrive(void *arg) {
  pthread_barrier_wait(&b);
  return 0;
}

/* The harness returns without a join: the program ends there, so a thread
   left waiting at the destroyed barrier is no deadlock. */
TSOCHECK void destroy_while_waiting(void) {
  pthread_t t;
  pthread_barrier_init(&b, 0, 2);
  pthread_create(&t, 0, arrive, 0);
  pthread_barrier_destroy(&b); /* line 19: t may wait on it */
}

TSOCHECK void init_twice(void) {
  pthread_barrier_init(&b, 0, 1);
  pthread_barrier_init(&b, 0, 1); /* line 24 */
}

/* Correct use: every party has passed before the destroy; then the barrier
   is initialised again. */
TSOCHECK void destroy_then_init(void) {
  pthread_t t;
  pthread_barrier_init(&b, 0, 2);
  pthread_create(&t, 0, arrive, 0);
  pthread_barrier_wait(&b);
  pthread_join(t, 0);
  pthread_barrier_destroy(&b);
  pthread_barrier_init(&b, 0, 1);
  pthread_barrier_wait(&b);
  pthread_barrier_destroy(&b);
}
