/* Independent reads of independent writes (IRIW): two readers must agree on
 * the order of two independent writes. TSO and PSO are multi-copy atomic
 * (one shared memory), so they always agree.
 *
 * expect: SC=verified TSO=verified PSO=verified
 * expect-executions: SC=15 TSO=15 PSO=15
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int x, y;
int r1, r2, r3, r4;

static void *w1(void *arg) { x = 1; return NULL; }
static void *w2(void *arg) { y = 1; return NULL; }

static void *rd1(void *arg) {
  r1 = x;
  r2 = y;
  return NULL;
}

static void *rd2(void *arg) {
  r3 = y;
  r4 = x;
  return NULL;
}

TSOCHECK void iriw(void) {
  pthread_t a, b, c, d;
  pthread_create(&a, NULL, w1, NULL);
  pthread_create(&b, NULL, w2, NULL);
  pthread_create(&c, NULL, rd1, NULL);
  pthread_create(&d, NULL, rd2, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  pthread_join(c, NULL);
  pthread_join(d, NULL);
  assert(!(r1 == 1 && r2 == 0 && r3 == 1 && r4 == 0));
}
