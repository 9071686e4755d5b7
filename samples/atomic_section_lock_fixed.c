/* The verification benchmarks' lock: __VERIFIER_atomic_acquire() waits
 * (assume) until m is 0 and sets it, with no other thread running meanwhile.
 * The fence before the acquire section ends drains its store m = 1, so the
 * lock is exclusive under TSO; under PSO the release also needs a store-store
 * barrier, or m = 0 can reach memory before the critical section's stores
 * (compare atomic_section_lock_buggy.c).
 *
 * expect: SC=verified TSO=verified PSO=verified
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

extern void __VERIFIER_assume(int);

int m, inside;

void __VERIFIER_atomic_acquire(void) {
  __VERIFIER_assume(m == 0);
  m = 1;
  atomic_thread_fence(memory_order_seq_cst);
}

void __VERIFIER_atomic_release(void) {
  atomic_thread_fence(memory_order_release); /* PSO: the critical section's stores first */
  m = 0;
}

static void *critical(void *arg) {
  __VERIFIER_atomic_acquire();
  inside++;
  assert(inside == 1);
  inside--;
  __VERIFIER_atomic_release();
  return 0;
}

TSOCHECK void atomic_lock(void) {
  pthread_t a, b;
  pthread_create(&a, 0, critical, 0);
  pthread_create(&b, 0, critical, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
}
