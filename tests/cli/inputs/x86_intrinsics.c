/* Store buffering with the fences x86 code writes as intrinsics: with
 * _mm_mfence() between each thread's store and load no execution reads
 * both old values (TSO and PSO); with -DFENCE=_mm_sfence() or _mm_lfence()
 * (store-store / load-load only) one does. The threads wait for the start
 * with _mm_pause() and sched_yield() in the loop, as spin-waits do. */
#include <assert.h>
#include <emmintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#ifndef FENCE
#define FENCE _mm_mfence()
#endif

atomic_int start;
int x, y, r1, r2;

static void *left(void *arg) {
  while (!atomic_load_explicit(&start, memory_order_relaxed)) {
    _mm_pause();
    sched_yield();
  }
  __atomic_store_n(&x, 1, __ATOMIC_RELAXED);
  FENCE;
  r1 = __atomic_load_n(&y, __ATOMIC_RELAXED);
  return arg;
}

static void *right(void *arg) {
  __atomic_store_n(&y, 1, __ATOMIC_RELAXED);
  FENCE;
  r2 = __atomic_load_n(&x, __ATOMIC_RELAXED);
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, left, 0);
  pthread_create(&b, 0, right, 0);
  atomic_store_explicit(&start, 1, memory_order_relaxed);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(r1 == 1 || r2 == 1);
  return 0;
}
