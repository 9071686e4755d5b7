/* Load buffering (LB): each thread loads one variable, then stores the other.
 * Both loads seeing the other thread's store would need a load to be
 * reordered after a later store: no model here allows that.
 *
 * expect: SC=verified TSO=verified PSO=verified
 * expect-executions: SC=3 TSO=3 PSO=3
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int x, y;
int r1, r2;

static void *t1(void *arg) {
  r1 = x;
  y = 1;
  return NULL;
}

static void *t2(void *arg) {
  r2 = y;
  x = 1;
  return NULL;
}

TSOCHECK void load_buffering(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, t1, NULL);
  pthread_create(&b, NULL, t2, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(!(r1 == 1 && r2 == 1));
}
