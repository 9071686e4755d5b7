/* A ticket lock whose release is a plain increment of `now_serving`.
 *
 * Bug: fine on x86-TSO (stores stay in order), but under SPARC-PSO the new
 * `now_serving` can become visible before the critical section's store, so
 * the next ticket holder reads a stale `counter`.
 *
 * expect: SC=verified TSO=verified PSO=violation
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

atomic_uint next_ticket;
volatile unsigned now_serving;
int counter;

static void *worker(void *arg) {
  unsigned me = atomic_fetch_add_explicit(&next_ticket, 1, memory_order_relaxed);
  while (now_serving != me)
    ;
  counter = counter + 1; /* critical section */
  now_serving = me + 1;
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
