/* SB without an assertion: nothing fails, but TSO lets both loads read 0,
   which SC forbids. The annotation asks for the robustness check. */
#include <pthread.h>
#include <tsocheck.h>
int x, y, r1, r2;
static void *t1(void *a) { x = 1; r1 = y; return 0; }
static void *t2(void *a) { y = 1; r2 = x; return 0; }
TSOCHECK_WITH("robustness") void sb_no_assert(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
}
