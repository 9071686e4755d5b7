/* A verification-benchmark program as it is, with no annotation: checked
   with --main (argc = 1, argv = {"prog", NULL}). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

extern void abort(void);
void reach_error(void) { assert(0); }
void __VERIFIER_assert(int cond) {
  if (!cond) {
  ERROR:
    reach_error();
    abort();
  }
}

int x, y;

void *t1(void *arg) {
  x = 1;
  return NULL;
}

void *t2(void *arg) {
  y = x;
  return NULL;
}

int main(int argc, char **argv) {
  __VERIFIER_assert(argc == 1 && argv[0][0] == 'p' && argv[1] == NULL);
  pthread_t a, b;
  pthread_create(&a, NULL, t1, NULL);
  pthread_create(&b, NULL, t2, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  __VERIFIER_assert(y == 1);  /* fails: t2 may read x before t1 writes it */
  return 0;
}
