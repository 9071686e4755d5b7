/* The worker of the slow inputs (slow.c, slow_checks.c): three of them
   interleave in very many ways. */
#include <assert.h>
#include <pthread.h>

volatile int a, b, c, d;

static void *w(void *arg) {
  (void)arg;
  for (int i = 0; i < 3; i++) {
    a = a + 1;
    b = b + a;
    c = c + b;
    d = d + c;
  }
  return 0;
}

static void slow_body(void) {
  pthread_t t[3];
  for (int i = 0; i < 3; i++) pthread_create(&t[i], 0, w, 0);
  for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
  assert(a >= 0);
}
