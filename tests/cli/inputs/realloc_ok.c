/* realloc keeps the contents (element-wise copy) and frees the old block. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <tsocheck.h>

int *buf;
int ready;

static void *grow(void *arg) {
  int *p = malloc(2 * sizeof(int));
  p[0] = 7;
  p[1] = 8;
  p = realloc(p, 4 * sizeof(int));
  p[2] = 9;
  buf = p;
  ready = 1;
  return NULL;
}

TSOCHECK void realloc_check(void) {
  pthread_t t;
  pthread_create(&t, NULL, grow, NULL);
  pthread_join(t, NULL);
  assert(buf[0] == 7 && buf[1] == 8 && buf[2] == 9);
  int *q = realloc(buf, sizeof(int));
  assert(q[0] == 7);
  free(q);
}
