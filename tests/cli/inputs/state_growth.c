/* Two threads add each other's counter five times (fib_bench): about a
 * hundred thousand distinct states under TSO, so a small state memory limit
 * (the annotation below) cuts the stateful search: `bounded`. */
#include <pthread.h>
#include <tsocheck.h>

int i = 1, j = 1;

static void *t1(void *arg) {
  for (int k = 0; k < 5; k++) i += j;
  return NULL;
}
static void *t2(void *arg) {
  for (int k = 0; k < 5; k++) j += i;
  return NULL;
}

/* The harness: no assertion, so only the state space decides the result. */
TSOCHECK_WITH("stateful memory_limit=16")
void fib_states(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, t1, NULL);
  pthread_create(&b, NULL, t2, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}
