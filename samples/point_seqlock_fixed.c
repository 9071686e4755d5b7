/* A sequence lock around a point of two doubles on a circle of radius 5:
 * the writer moves it from (3, 4) to (-4, 3) (x*x + y*y == 25.0 exactly for
 * both, in IEEE double arithmetic); a reader retries until it saw the same
 * even `seq` before and after reading, so it never computes with a torn
 * point such as (-4, 4).
 *
 * Fixed: release fences (store-store barriers on PSO) after making `seq`
 * odd and before making it even again; the point's doubles are published
 * between them.
 *
 * expect: SC=verified TSO=verified PSO=verified
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

volatile unsigned seq;
volatile double px = 3.0, py = 4.0;

static void *writer(void *arg) {
  seq = seq + 1;
  atomic_thread_fence(memory_order_release);
  px = -4.0;
  py = 3.0;
  atomic_thread_fence(memory_order_release);
  seq = seq + 1;
  return NULL;
}

static void *reader(void *arg) {
  unsigned s0, s1;
  double x, y;
  do {
    s0 = seq;
    x = px;
    y = py;
    s1 = seq;
  } while ((s0 & 1) || s0 != s1);
  assert(x * x + y * y == 25.0);
  return NULL;
}

TSOCHECK void point_seqlock(void) {
  pthread_t w, r;
  pthread_create(&w, NULL, writer, NULL);
  pthread_create(&r, NULL, reader, NULL);
  pthread_join(w, NULL);
  pthread_join(r, NULL);
}
