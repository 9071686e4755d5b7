/* Store buffering (SB): each thread stores to one variable, then loads the other.
 * Under TSO/PSO both stores can still sit in store buffers when the loads run,
 * so both threads read 0 — impossible under SC.
 *
 * expect: SC=verified TSO=violation PSO=violation
 * expect-executions: SC=3 TSO=4 PSO=4
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int x, y;
int r1, r2;

static void *t1(void *arg) {
  x = 1;
  r1 = y;
  return NULL;
}

static void *t2(void *arg) {
  y = 1;
  r2 = x;
  return NULL;
}

TSOCHECK void store_buffering(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, t1, NULL);
  pthread_create(&b, NULL, t2, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(!(r1 == 0 && r2 == 0));
}
