/* --time-limit covers fence synthesis and its re-checks too. The
   TSO-only store-buffering failure is found late (after every interleaving of
   the workers' critical sections for the earlier outcomes); the synthesis
   that follows must not run past the check's limit. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>
int x, y, r1, r2, c, d;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static void *t1(void *a) { x = 1; r1 = y; return 0; }
static void *t2(void *a) { y = 1; r2 = x; return 0; }
static void *w(void *a) {
  for (int i = 0; i < 3; i++) {
    pthread_mutex_lock(&m);
    c = c + 1;
    d = d + c;
    pthread_mutex_unlock(&m);
  }
  return 0;
}
TSOCHECK void late(void) {
  pthread_t a, b, u[3];
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  for (int i = 0; i < 3; i++) pthread_create(&u[i], 0, w, 0);
  for (int i = 0; i < 3; i++) pthread_join(u[i], 0);
  assert(!(r1 == 0 && r2 == 0));
}
