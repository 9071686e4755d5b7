// expect-error-line: 9
#include <pthread.h>
#include <tsocheck.h>

int shared;
int mystery(int *p);

static void *worker(void *arg) {
  mystery(&shared);
  return NULL;
}

TSOCHECK void calls_unknown(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
}
