/* A ticket lock with acquire/release: the hand-over is a release store of
 * `now_serving` (a store-store barrier under PSO, nothing on x86-TSO).
 *
 * expect: SC=verified TSO=verified PSO=verified
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

atomic_uint next_ticket;
atomic_uint now_serving;
int counter;

static void *worker(void *arg) {
  unsigned me = atomic_fetch_add_explicit(&next_ticket, 1, memory_order_relaxed);
  while (atomic_load_explicit(&now_serving, memory_order_acquire) != me)
    ;
  counter = counter + 1; /* critical section */
  atomic_store_explicit(&now_serving, me + 1, memory_order_release);
  return NULL;
}

TSOCHECK void ticket_lock(void) {
  pthread_t t0, t1;
  pthread_create(&t0, NULL, worker, NULL);
  pthread_create(&t1, NULL, worker, NULL);
  pthread_join(t0, NULL);
  pthread_join(t1, NULL);
  assert(counter == 2);
}
