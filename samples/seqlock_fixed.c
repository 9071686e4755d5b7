/* A sequence lock with write barriers (release fences: store-store barriers
 * under PSO, nothing on x86-TSO) between the `seq` updates and the data.
 * The reader's loads are ordered by TSO and PSO alike.
 *
 * expect: SC=verified TSO=verified PSO=verified
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

#define smp_wmb() atomic_thread_fence(memory_order_release)
volatile unsigned seq;
volatile int x, y; /* invariant: x == y */

static void *writer(void *arg) {
  seq = seq + 1;
  smp_wmb();
  x = 1;
  y = 1;
  smp_wmb();
  seq = seq + 1;
  return NULL;
}

static void *reader(void *arg) {
  unsigned s0, s1;
  int a, b;
  do {
    s0 = seq;
    a = x;
    b = y;
    s1 = seq;
  } while ((s0 & 1) || s0 != s1);
  assert(a == b);
  return NULL;
}

TSOCHECK void seqlock(void) {
  pthread_t w, r;
  pthread_create(&w, NULL, writer, NULL);
  pthread_create(&r, NULL, reader, NULL);
  pthread_join(w, NULL);
  pthread_join(r, NULL);
}
