/* GenMC's __VERIFIER_optional around the wait of a test-and-test-and-set
 * lock: the block either is skipped or runs and the execution is then
 * blocked, so its choice does not keep the retry loop from being a spin
 * loop (a failed exchange writes back what it read: an idle iteration).
 * Two threads take the lock and check mutual exclusion: verified, nothing
 * cut. With -DFALLTHROUGH the block chosen by __VERIFIER_opt_begin goes on
 * instead of ending blocked: the choice then is an effect (a thread that
 * may still choose differently is not spinning), the loop runs as written
 * and is cut at its bound. */
#include <assert.h>
#include <genmc.h>
#include <stdatomic.h>

atomic_int state;
int owner;

static void acquire(void) {
  while (1) {
#ifdef FALLTHROUGH
    if (__VERIFIER_opt_begin()) (void)atomic_load_explicit(&state, memory_order_relaxed);
#else
    __VERIFIER_optional(while (atomic_load_explicit(&state, memory_order_relaxed) != 0););
#endif
    if (!atomic_exchange_explicit(&state, 1, memory_order_acquire)) return;
  }
}

static void *worker(void *arg) {
  acquire();
  owner = (int)(long)arg;
  assert(owner == (int)(long)arg);
  atomic_store_explicit(&state, 0, memory_order_release);
  return NULL;
}

int main(void) {
  __VERIFIER_thread_t a = __VERIFIER_spawn(worker, (void *)1L);
  __VERIFIER_thread_t b = __VERIFIER_spawn(worker, (void *)2L);
  __VERIFIER_join(a);
  __VERIFIER_join(b);
  return 0;
}
