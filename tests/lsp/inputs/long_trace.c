/* dap_replay_test: a violation whose trace has about 200 steps (one
 * worker runs 40 iterations before main's assertion fails), a trace
 * more than a few replay checkpoints long. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int x, y;

static void *worker(void *arg) {
  for (int i = 0; i < 40; i++) {
    x = i;
    y = x + 1;
  }
  return NULL;
}

TSOCHECK_WITH("loop_bound=50") void long_trace(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  assert(y != 40);
}
