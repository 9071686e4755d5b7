/* A program written for GenMC (its <genmc.h> API), checked as it is with
 * --main: __VERIFIER_spawn/join, a spin loop in GenMC's annotated form, an
 * optional block, a hazard pointer and the hint macros. Message passing
 * through an atomic flag: verifies under every model. With -DBUG the reader
 * does not wait and the assertion fails. */
#include <assert.h>
#include <genmc.h>
#include <stdatomic.h>

atomic_int flag;
int data;
atomic_intptr_t shared;

void *producer(void *arg) {
  (void)arg;
  static int box = 42;
  __VERIFIER_local_write(data = 1);
  atomic_store_explicit(&shared, (intptr_t)&box, memory_order_release);
  atomic_store_explicit(&flag, 1, memory_order_release);
  return NULL;
}

void *consumer(void *arg) {
  (void)arg;
#ifndef BUG
  int f;
  for (__VERIFIER_loop_begin(); __VERIFIER_spin_start(),
       f = atomic_load_explicit(&flag, memory_order_acquire), __VERIFIER_spin_end(f == 0), f == 0;)
    ;
#endif
  __VERIFIER_optional(atomic_load_explicit(&flag, memory_order_relaxed));
  __VERIFIER_hp_t *hp = __VERIFIER_hp_alloc();
  int *p = (int *)__VERIFIER_hp_protect(hp, &shared);
  if (p) assert(*p == 42);
  __VERIFIER_hp_free(hp);
  assert(data == 1);
  return (void *)1L;
}

int main(void) {
  __VERIFIER_thread_t a = __VERIFIER_spawn(producer, NULL);
  __VERIFIER_thread_t b = __VERIFIER_spawn(consumer, NULL);
  __VERIFIER_join(a);
  void *r = __VERIFIER_join(b);
  assert(r == (void *)1L);
  return 0;
}
