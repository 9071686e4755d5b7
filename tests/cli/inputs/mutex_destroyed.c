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
