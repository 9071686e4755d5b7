/* A store and three fetch_adds on one location. Every one of the 4! orders
 * of the four writes gives its own reads-from/coherence graph, so an exact
 * explorer finds 24 executions under every model (RMWs drain the buffer, so
 * TSO and PSO add nothing). The assertion rules out one order: t3 adds 100,
 * t2 adds 10, t1 adds 1, then the store of 5 lands last. Until the explorer
 * re-added a revisited RMW's write, that order was missed and this check was
 * wrongly `verified`.
 *
 * expect: SC=violation TSO=violation PSO=violation
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

atomic_int x;
int r1, r2, r3;

static void *store(void *arg) {
  atomic_store(&x, 5);
  return NULL;
}
static void *add1(void *arg) {
  r1 = atomic_fetch_add(&x, 1);
  return NULL;
}
static void *add10(void *arg) {
  r2 = atomic_fetch_add(&x, 10);
  return NULL;
}
static void *add100(void *arg) {
  r3 = atomic_fetch_add(&x, 100);
  return NULL;
}

TSOCHECK void rmw_chain(void) {
  pthread_t s, a, b, c;
  pthread_create(&s, NULL, store, NULL);
  pthread_create(&a, NULL, add1, NULL);
  pthread_create(&b, NULL, add10, NULL);
  pthread_create(&c, NULL, add100, NULL);
  pthread_join(s, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  pthread_join(c, NULL);
  assert(!(r1 == 110 && r2 == 100 && r3 == 0 && atomic_load(&x) == 5));
}
