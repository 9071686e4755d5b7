// expect-error-line: 8
#include <pthread.h>
#include <tsocheck.h>

long double ratio;  /* x86_fp80: only float and double are modelled */

static void *worker(void *arg) {
  ratio = ratio * 1.5;
  return NULL;
}

TSOCHECK void uses_float(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
}
