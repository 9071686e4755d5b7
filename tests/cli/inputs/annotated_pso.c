/* The annotation selects PSO: message passing without a barrier fails there. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int data, flag;

static void *writer(void *arg) {
  data = 1;
  flag = 1;
  return NULL;
}

static void *reader(void *arg) {
  if (flag == 1) assert(data == 1);
  return NULL;
}

TSOCHECK_WITH("model=pso") void mp_pso(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, writer, NULL);
  pthread_create(&b, NULL, reader, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}
