/* A consumer that does work while waiting for the producer: its loop has side
 * effects and its exit depends on another thread's writes, so it is bounded.
 * The loop is on line 18.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

atomic_int count;
int attempts;

static void *producer(void *arg) {
  for (int i = 0; i < 3; i++) atomic_fetch_add(&count, 1);
  return NULL;
}

static void *consumer(void *arg) {
  while (atomic_load(&count) < 3) attempts = attempts + 1;
  return NULL;
}

TSOCHECK_WITH("loop_bound=3") void waits_with_effects(void) {
  pthread_t p, c;
  pthread_create(&p, NULL, producer, NULL);
  pthread_create(&c, NULL, consumer, NULL);
  pthread_join(p, NULL);
  pthread_join(c, NULL);
}
