// expect-error-line: 10
#include <pthread.h>
#include <setjmp.h>
#include <tsocheck.h>

jmp_buf env;
int shared;

static void *worker(void *arg) {
  if (setjmp(env) == 0) shared = 1;
  return NULL;
}

TSOCHECK void jumps(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
}
