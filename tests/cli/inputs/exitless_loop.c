/* A loop with no exit condition that works on shared state is
   bounded by --loop-bound (named in the limits), not run to the event limit;
   the executions where the worker never enters it complete. */
#include <pthread.h>
#include <tsocheck.h>
int go, n;
static void *worker(void *a) {
  if (go) {
    for (;;) n = n + 1;
  }
  return 0;
}
static void *starter(void *a) { go = 1; return 0; }
TSOCHECK void serve(void) {
  pthread_t w, s;
  pthread_create(&w, 0, worker, 0);
  pthread_create(&s, 0, starter, 0);
  pthread_join(s, 0);
  pthread_join(w, 0);
}
