/* Compiles only with -DSHARED_TYPE=int (from compile_commands.json in the test). */
#include <pthread.h>
#include <tsocheck.h>

SHARED_TYPE counter;

static void *worker(void *arg) {
  counter = 1;
  return NULL;
}

TSOCHECK void with_define(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
}
