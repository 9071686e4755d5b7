/* Spin loops whose reads happen in called read-only functions: every read of
   the idle iteration counts, so neither wait is a false "spins forever". */
#include <pthread.h>
#include <tsocheck.h>

int a, b, c, d, e;

static int sum3(void) { return c + d + e; }
static int ready3(void) { return a + b + c; }
static int ready5(void) { return a + b + sum3(); }

static void *setter(void *arg) {
  a = 1;
  return 0;
}

TSOCHECK void three_reads(void) {
  pthread_t t;
  pthread_create(&t, 0, setter, 0);
  while (ready3() == 0)
    ;
  pthread_join(t, 0);
}

TSOCHECK void nested_calls(void) {
  pthread_t t;
  pthread_create(&t, 0, setter, 0);
  while (ready5() == 0)
    ;
  pthread_join(t, 0);
}

TSOCHECK void nobody_sets(void) {
  while (ready5() == 0) /* line 34: spins forever */
    ;
}
