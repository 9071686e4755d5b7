/* Store buffering with a full fence between each store and load: the stores
 * must reach memory before the loads, so r1 == r2 == 0 is impossible everywhere.
 *
 * expect: SC=verified TSO=verified PSO=verified
 * expect-executions: SC=3 TSO=3 PSO=3
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

int x, y;
int r1, r2;

static void *t1(void *arg) {
  x = 1;
  atomic_thread_fence(memory_order_seq_cst);
  r1 = y;
  return NULL;
}

static void *t2(void *arg) {
  y = 1;
  asm volatile("mfence" ::: "memory");
  r2 = x;
  return NULL;
}

TSOCHECK void store_buffering_fenced(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, t1, NULL);
  pthread_create(&b, NULL, t2, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(!(r1 == 0 && r2 == 0));
}
