/* A sequence lock: the writer makes `seq` odd, updates two words, and makes
 * it even again; a reader retries until it saw the same even `seq` before
 * and after reading, so it never returns a torn pair.
 *
 * Bug: no write barriers. x86-TSO keeps the writer's stores (and the
 * reader's loads) in order, but SPARC-PSO may publish the data before the
 * odd `seq`, or the final `seq` before the data: the reader sees a torn pair.
 *
 * expect: SC=verified TSO=verified PSO=violation
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

volatile unsigned seq;
volatile int x, y; /* invariant: x == y */

static void *writer(void *arg) {
  seq = seq + 1;
  x = 1;
  y = 1;
  seq = seq + 1;
  return NULL;
}

static void *reader(void *arg) {
  unsigned s0, s1;
  int a, b;
  do {
    s0 = seq;
    a = x;
    b = y;
    s1 = seq;
  } while ((s0 & 1) || s0 != s1);
  assert(a == b);
  return NULL;
}

TSOCHECK void seqlock(void) {
  pthread_t w, r;
  pthread_create(&w, NULL, writer, NULL);
  pthread_create(&r, NULL, reader, NULL);
  pthread_join(w, NULL);
  pthread_join(r, NULL);
}
