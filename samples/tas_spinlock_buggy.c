/* A test-and-set spinlock whose unlock is a plain store.
 *
 * Bug: on x86-TSO stores stay in order, so the plain `locked = 0` cannot
 * overtake the critical section's store; under SPARC-PSO it can, and the
 * next owner reads a stale `counter`.
 *
 * expect: SC=verified TSO=verified PSO=violation
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

volatile int locked;
int counter;

static void spin_lock(volatile int *l) {
  while (__sync_lock_test_and_set(l, 1)) /* atomic exchange */
    ;
}

static void spin_unlock(volatile int *l) { *l = 0; }

static void *worker(void *arg) {
  spin_lock(&locked);
  counter = counter + 1;
  spin_unlock(&locked);
  return NULL;
}

TSOCHECK void tas_lock(void) {
  pthread_t t0, t1;
  pthread_create(&t0, NULL, worker, NULL);
  pthread_create(&t1, NULL, worker, NULL);
  pthread_join(t0, NULL);
  pthread_join(t1, NULL);
  assert(counter == 2);
}
