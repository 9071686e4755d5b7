/* IRIW with acquire loads: under RC11 the two readers may see the two
 * independent writes in opposite orders; the annotation chooses RC11. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

atomic_int x, y;
int r1, r2, r3, r4;

static void *wx(void *arg) { atomic_store_explicit(&x, 1, memory_order_release); return NULL; }
static void *wy(void *arg) { atomic_store_explicit(&y, 1, memory_order_release); return NULL; }
static void *rxy(void *arg) {
  r1 = atomic_load_explicit(&x, memory_order_acquire);
  r2 = atomic_load_explicit(&y, memory_order_acquire);
  return NULL;
}
static void *ryx(void *arg) {
  r3 = atomic_load_explicit(&y, memory_order_acquire);
  r4 = atomic_load_explicit(&x, memory_order_acquire);
  return NULL;
}

TSOCHECK_WITH("model=rc11") void iriw_acquire(void) {
  pthread_t t[4];
  pthread_create(&t[0], NULL, wx, NULL);
  pthread_create(&t[1], NULL, wy, NULL);
  pthread_create(&t[2], NULL, rxy, NULL);
  pthread_create(&t[3], NULL, ryx, NULL);
  for (int i = 0; i < 4; ++i) pthread_join(t[i], NULL);
  assert(!(r1 == 1 && r2 == 0 && r3 == 1 && r4 == 0));
}
