/* Many interleavings and no violation: a long check to cancel. */
#include <pthread.h>
#include <tsocheck.h>

volatile int a, b, c, d;

static void *w(void *arg) {
  (void)arg;
  for (int i = 0; i < 4; i++) {
    a = a + 1;
    b = b + a;
    c = c + b;
    d = d + c;
  }
  return 0;
}

TSOCHECK void spin(void) {
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, w, NULL);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
}
