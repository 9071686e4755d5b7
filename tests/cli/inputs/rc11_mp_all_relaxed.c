/* Message passing with every access relaxed: under RC11 the reader may
 * see flag = 1 and still read data = 0. The fix needs a release store of
 * flag and an acquire load of it. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

atomic_int data, flag;

static void *writer(void *arg) {
  atomic_store_explicit(&data, 42, memory_order_relaxed);
  atomic_store_explicit(&flag, 1, memory_order_relaxed);
  return NULL;
}

static void *reader(void *arg) {
  if (atomic_load_explicit(&flag, memory_order_relaxed))
    assert(atomic_load_explicit(&data, memory_order_relaxed) == 42);
  return NULL;
}

TSOCHECK_WITH("model=rc11") void mp_all_relaxed(void) {
  pthread_t w, r;
  pthread_create(&w, NULL, writer, NULL);
  pthread_create(&r, NULL, reader, NULL);
  pthread_join(w, NULL);
  pthread_join(r, NULL);
}
