/* __VERIFIER_nondet_bool(): a choice point, both 0 and 1 explored. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

extern _Bool __VERIFIER_nondet_bool(void);
extern void __VERIFIER_assume(int);

int x;

static void *writer(void *arg) {
  x = __VERIFIER_nondet_bool() ? 1 : 2;
  return NULL;
}

/* 2 choices x 2 choices of main: 4 executions, all fine. */
TSOCHECK void nondet_ok(void) {
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  pthread_join(t, NULL);
  _Bool b = __VERIFIER_nondet_bool();
  assert(x == 1 || x == 2);
  assert(b == 0 || b == 1);
}

/* Fails only when the writer chose 1 and main chose 0. */
TSOCHECK void nondet_fails(void) {
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  pthread_join(t, NULL);
  _Bool b = __VERIFIER_nondet_bool();
  assert(!(x == 1 && !b));
}

/* An assume prunes a choice: only b = 1 goes on. */
TSOCHECK void nondet_assume(void) {
  _Bool b = __VERIFIER_nondet_bool();
  __VERIFIER_assume(b);
  assert(b == 1);
}

/* A loop on a choice is not an idle spin loop: it can stop after any
   iteration (here: after at most 3, counted). */
TSOCHECK void nondet_loop(void) {
  int n = 0;
  while (__VERIFIER_nondet_bool() && n < 3) n++;
  assert(n <= 2);  /* fails: three 1s in a row */
}
