/* A lost update that every memory order has: two threads increment with a
 * separate load and store. No order upgrade can fix it. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

atomic_int n;

static void *inc(void *arg) {
  int v = atomic_load_explicit(&n, memory_order_relaxed);
  atomic_store_explicit(&n, v + 1, memory_order_relaxed);
  return NULL;
}

TSOCHECK_WITH("model=rc11") void lost_update(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, inc, NULL);
  pthread_create(&b, NULL, inc, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(atomic_load(&n) == 2);
}
