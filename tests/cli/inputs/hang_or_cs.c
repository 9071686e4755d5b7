/* Dekker's entry without the back-off: a thread that sees the other's flag
 * waits for `go`, which nobody sets. Under SC at least one thread sees the
 * other's flag, so every execution hangs; under TSO both may read 0 and
 * enter the critical section together (the assertion fails). */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

volatile int x, y, go, in1, in2;

static void *t1(void *a) {
  x = 1;
  if (y) {
    while (!go)
      ;
  }
  in1 = 1;
  assert(!in2);
  return 0;
}

static void *t2(void *a) {
  y = 1;
  if (x) {
    while (!go)
      ;
  }
  in2 = 1;
  return 0;
}

TSOCHECK void hang_or_cs(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
}
