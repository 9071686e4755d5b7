/* T1 unlocks the mutex T0 holds while T0 tries to lock it again: the unlock
   by a non-owner is the error (line 9), not the deadlock it would prevent. */
#include <pthread.h>
#include <tsocheck.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *intruder(void *arg) {
  pthread_mutex_unlock(&m);
  return 0;
}

TSOCHECK void unlock_by_other(void) {
  pthread_t t;
  pthread_mutex_lock(&m);
  pthread_create(&t, 0, intruder, 0);
  pthread_mutex_lock(&m);
  pthread_join(t, 0);
}
