/* main(void) as the harness (--main): verifies; its thread keeps running
   after main returns (the main thread does not wait for it). */
#include <pthread.h>

extern void abort(void);
void reach_error(void);
void __VERIFIER_assert(int cond) {
  if (!cond) {
    reach_error();
    abort();
  }
}

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int x;

void *t1(void *arg) {
  pthread_mutex_lock(&m);
  x = x + 1;
  __VERIFIER_assert(x == 1 || x == 2);
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t a;
  pthread_create(&a, NULL, t1, NULL);
  pthread_mutex_lock(&m);
  x = x + 1;
  pthread_mutex_unlock(&m);
  return 0;
}
