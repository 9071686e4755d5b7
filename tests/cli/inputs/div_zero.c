/* Division by zero when the reader runs before the writer. */
#include <pthread.h>
#include <tsocheck.h>

volatile int d;
int q;

static void *writer(void *arg) {
  d = 2;
  return 0;
}

TSOCHECK void div_zero(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  q = 10 / d;
  pthread_join(t, 0);
}
