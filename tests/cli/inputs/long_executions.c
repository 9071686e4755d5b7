/* --time-limit is a hard limit even when single executions are very
   long (six threads, thousands of shared accesses each; run with a high
   --loop-bound). */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>
int x, y, stop;
static void *work(void *a) {
  for (int i = 0; i < 1000 && !stop; i++) {
    x = x + 1;
    y = y + x;
  }
  return 0;
}
TSOCHECK void long_runs(void) {
  pthread_t t[6];
  for (int i = 0; i < 6; i++) pthread_create(&t[i], 0, work, 0);
  for (int i = 0; i < 6; i++) pthread_join(t[i], 0);
  assert(x <= 6000);
}
