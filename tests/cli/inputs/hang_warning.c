/* A harness that leaves a thread spinning on purpose: deadlocks=warning. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

volatile int stop, x;

static void *spinner(void *arg) {
  while (!stop)
    ;
  return 0;
}

TSOCHECK_WITH("deadlocks=warning") void hang_warning(void) {
  pthread_t t;
  pthread_create(&t, 0, spinner, 0);
  x = 1;
  assert(x == 1);
  pthread_join(t, 0);
}
