/* 2+2W: two threads write both variables in opposite orders. Ending with
 * x == 1 && y == 1 needs each thread's second store to reach memory before its
 * first: only PSO allows it.
 *
 * expect: SC=verified TSO=verified PSO=violation
 * expect-executions: SC=3 TSO=3 PSO=4
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int x, y;

static void *t1(void *arg) {
  x = 1;
  y = 2;
  return NULL;
}

static void *t2(void *arg) {
  y = 1;
  x = 2;
  return NULL;
}

TSOCHECK void two_plus_two_writes(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, t1, NULL);
  pthread_create(&b, NULL, t2, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(!(x == 1 && y == 1));
}
