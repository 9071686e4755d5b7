/* A lost update that happens under SC too: fences cannot fix it. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int counter;

static void *inc(void *arg) {
  counter = counter + 1;
  return NULL;
}

TSOCHECK void lost_update(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, inc, NULL);
  pthread_create(&b, NULL, inc, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(counter == 2);
}
