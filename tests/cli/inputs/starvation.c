/* A thread that never blocks must not starve the others. T1 loops
   forever; T2 fails an assertion. The violation must be found, whether the
   loop is cut at the loop bound or (--loop-bound 0) at the engine's event limit. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>
int x;
static void *spin(void *a) { while (1) x++; return 0; }
static void *bad(void *a) { assert(0); return 0; }
TSOCHECK void starve(void) {
  pthread_t t0, t1;
  pthread_create(&t0, 0, spin, 0);
  pthread_create(&t1, 0, bad, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
}
