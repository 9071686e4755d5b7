/* The verification benchmarks' error functions: reach_error() (declared
   only, or defined as __assert_fail), __VERIFIER_error(), and abort() as an
   error (default) or as the end of the program (--abort=end / abort=end). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <tsocheck.h>

extern void __VERIFIER_error(void);
void reach_error(void) { __assert_fail("0", "verifier_errors.c", 10, __func__); }

int x;

static void *writer(void *arg) {
  x = 1;
  return NULL;
}

/* x == 0 when the main thread reads before the writer: reach_error(). */
TSOCHECK void reach(void) {
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  if (x == 0) reach_error();
  pthread_join(t, NULL);
}

TSOCHECK void verifier_error(void) {
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  pthread_join(t, NULL);
  if (x != 1) __VERIFIER_error();  /* never */
  if (x == 1) __VERIFIER_error();  /* always */
}

/* abort() ends the program before the writer is joined: an error by
   default, not with abort=end. */
static void abort_then_check(void) {
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  if (x == 0) abort();
  pthread_join(t, NULL);
  if (x != 1) reach_error();  /* never */
}
TSOCHECK void abort_default(void) { abort_then_check(); }
TSOCHECK_WITH("abort=end") void abort_end(void) { abort_then_check(); }

/* With abort=end the program still fails when reach_error() is reachable
   before the abort. */
TSOCHECK_WITH("abort=end") void abort_end_then_error(void) {
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  if (x == 1) reach_error();
  abort();
}
