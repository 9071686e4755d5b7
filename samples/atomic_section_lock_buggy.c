/* The verification benchmarks' lock: __VERIFIER_atomic_acquire() waits
 * (assume) until m is 0 and sets it, with no other thread running meanwhile.
 * That is mutual exclusion under SC. Under x86-TSO the section's store
 * m = 1 can still sit in the store buffer when the section ends: the other
 * thread's acquire reads m == 0 from memory and both enter. A fence before
 * the section ends fixes it (atomic_section_lock_fixed.c).
 *
 * expect: SC=verified TSO=violation PSO=violation
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

extern void __VERIFIER_assume(int);

int m, inside;

void __VERIFIER_atomic_acquire(void) {
  __VERIFIER_assume(m == 0);
  m = 1;
}

void __VERIFIER_atomic_release(void) { m = 0; }

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
