/* A test-and-test-and-set spinlock with a release unlock: the waiting loop
 * only reads until the lock looks free, the exchange takes it, and
 * __sync_lock_release is a release store (a store-store barrier under PSO).
 *
 * expect: SC=verified TSO=verified PSO=verified
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

volatile int locked;
int counter;

static void spin_lock(volatile int *l) {
  while (__sync_lock_test_and_set(l, 1))
    while (*l)
      ;
}

static void spin_unlock(volatile int *l) { __sync_lock_release(l); }

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
