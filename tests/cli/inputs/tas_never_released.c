/* A test-and-set lock whose holder never releases it: when the holder runs
 * first, the other thread spins forever (its own exchange writes back the 1
 * it read, which is not progress). */
#include <pthread.h>
#include <tsocheck.h>

volatile int l;

static void *holder(void *a) {
  __sync_lock_test_and_set(&l, 1);
  return 0;
}

static void *spinner(void *a) {
  while (__sync_lock_test_and_set(&l, 1))
    ;
  return 0;
}

TSOCHECK void tas_never_released(void) {
  pthread_t a, b;
  pthread_create(&a, 0, holder, 0);
  pthread_create(&b, 0, spinner, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
}
