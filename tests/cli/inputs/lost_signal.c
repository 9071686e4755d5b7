/* A condition-variable wait whose predicate nobody makes true: a deadlock. */
#include <pthread.h>
#include <tsocheck.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int done;

static void *waiter(void *arg) {
  pthread_mutex_lock(&m);
  while (!done)
    pthread_cond_wait(&c, &m);
  pthread_mutex_unlock(&m);
  return 0;
}

TSOCHECK void lost_signal(void) {
  pthread_t t;
  pthread_create(&t, 0, waiter, 0);
  pthread_join(t, 0);
}
