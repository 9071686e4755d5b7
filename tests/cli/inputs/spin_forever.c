/* One thread waits for a flag nobody sets: it spins forever (not a deadlock). */
#include <pthread.h>
#include <tsocheck.h>

volatile int ready;

static void *waiter(void *arg) {
  while (!ready)
    ;
  return 0;
}

TSOCHECK void spin_forever(void) {
  pthread_t t;
  pthread_create(&t, 0, waiter, 0);
  pthread_join(t, 0);
}
