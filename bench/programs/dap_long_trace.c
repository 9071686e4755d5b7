/* bench/dap_steps.py: a violation whose trace has about 2,000 steps (one
 * worker runs 400 iterations before main's assertion fails), to time debugger
 * steps far from the start of a long trace. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int x, y;

static void *worker(void *arg) {
  for (int i = 0; i < 400; i++) {
    x = i;
    y = x + 1;
  }
  return NULL;
}

TSOCHECK_WITH("loop_bound=500") void long_trace(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  assert(y != 400);
}
