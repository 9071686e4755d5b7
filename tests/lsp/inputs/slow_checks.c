/* Four slow checks (many interleavings, each stopped by its time limit) and
   one small check after them: the check the user edits runs first. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#include "slow_worker.h"

TSOCHECK_WITH("time_limit=3") void slow1(void) { slow_body(); }
TSOCHECK_WITH("time_limit=3") void slow2(void) { slow_body(); }
TSOCHECK_WITH("time_limit=3") void slow3(void) { slow_body(); }
TSOCHECK_WITH("time_limit=3") void slow4(void) { slow_body(); }

volatile int x, y, r1, r2;

static void *sb0(void *p) { (void)p; x = 1; r1 = y; return 0; }
static void *sb1(void *p) { (void)p; y = 1; r2 = x; return 0; }

TSOCHECK void small(void) {
  pthread_t t0, t1;
  pthread_create(&t0, 0, sb0, 0);
  pthread_create(&t1, 0, sb1, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  assert(r1 == 1 || r2 == 1);
}
