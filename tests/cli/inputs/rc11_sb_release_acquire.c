/* Store buffering with release stores and acquire loads: under RC11 both
 * loads may read 0. Release and acquire cannot forbid it; all four
 * accesses must be seq_cst (the builtins' spelling). */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int x, y, r1, r2;

static void *t1(void *arg) {
  __atomic_store_n(&x, 1, __ATOMIC_RELEASE);
  r1 = __atomic_load_n(&y, __ATOMIC_ACQUIRE);
  return NULL;
}

static void *t2(void *arg) {
  __atomic_store_n(&y, 1, __ATOMIC_RELEASE);
  r2 = __atomic_load_n(&x, __ATOMIC_ACQUIRE);
  return NULL;
}

TSOCHECK_WITH("model=rc11") void sb_release_acquire(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, t1, NULL);
  pthread_create(&b, NULL, t2, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(r1 == 1 || r2 == 1);
}
