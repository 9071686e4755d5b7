/* Locking or unlocking a destroyed mutex is a memory error; destroy + init
   makes it usable again. */
#include <pthread.h>
#include <tsocheck.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int x;

static void *worker(void *arg) {
  pthread_mutex_lock(&m); /* line 10: may run after the destroy */
  x++;
  pthread_mutex_unlock(&m);
  return 0;
}

TSOCHECK void lock_after_destroy(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_mutex_destroy(&m);
  pthread_join(t, 0);
}

TSOCHECK void unlock_after_destroy(void) {
  pthread_mutex_lock(&m);
  pthread_mutex_destroy(&m);
  pthread_mutex_unlock(&m); /* line 26 */
}

TSOCHECK void destroy_then_init(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  pthread_mutex_destroy(&m);
  pthread_mutex_init(&m, 0);
  pthread_mutex_lock(&m);
  x++;
  pthread_mutex_unlock(&m);
  pthread_mutex_destroy(&m);
}

static void *destroyer(void *arg) {
  pthread_mutex_destroy(&m);
  return 0;
}

/* The destroy may come between the lock and the unlock, or before both. */
TSOCHECK void destroyed_while_used(void) {
  pthread_t t;
  pthread_create(&t, 0, destroyer, 0);
  pthread_mutex_lock(&m); /* line 50 */
  pthread_mutex_unlock(&m); /* line 51 */
  pthread_join(t, 0);
}
