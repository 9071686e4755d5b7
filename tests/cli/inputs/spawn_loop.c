/* A thread that creates threads without end must not starve the
   others: the assertion in `bad` is found. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>
static void *nop(void *a) { return 0; }
static void *spawner(void *a) {
  pthread_t t;
  while (1) pthread_create(&t, 0, nop, 0);
  return 0;
}
static void *bad(void *a) { assert(0); return 0; }
TSOCHECK void spawn_forever(void) {
  pthread_t t0, t1;
  pthread_create(&t0, 0, spawner, 0);
  pthread_create(&t1, 0, bad, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
}
