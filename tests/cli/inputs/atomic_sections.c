/* Atomic sections as the verification benchmarks write them:
   __VERIFIER_atomic_begin()/__VERIFIER_atomic_end() and functions named
   __VERIFIER_atomic_*. No other thread runs inside one; its stores still go
   through the store buffer under TSO/PSO. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
extern void __VERIFIER_assume(int);

int x, y, c, m, n;

static void *inc(void *arg) {
  __VERIFIER_atomic_begin();
  int t = x;
  x = t + 1;
  __VERIFIER_atomic_end();
  return 0;
}

TSOCHECK void section_increment(void) {
  pthread_t a, b;
  pthread_create(&a, 0, inc, 0);
  pthread_create(&b, 0, inc, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(x == 2);
}

static void *incFenced(void *arg) {
  __VERIFIER_atomic_begin();
  int t = y;
  y = t + 1;
  atomic_thread_fence(memory_order_seq_cst);
  __VERIFIER_atomic_end();
  return 0;
}

TSOCHECK void section_increment_fenced(void) {
  pthread_t a, b;
  pthread_create(&a, 0, incFenced, 0);
  pthread_create(&b, 0, incFenced, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(y == 2);
}

/* The benchmarks' lock: an acquire that blocks unless the lock is free. */
void __VERIFIER_atomic_acquire(void) {
  __VERIFIER_assume(m == 0);
  m = 1;
}
void __VERIFIER_atomic_release(void) { m = 0; }

static void *locked(void *arg) {
  __VERIFIER_atomic_acquire();
  int t = c;
  c = t + 1;
  __VERIFIER_atomic_release();
  return 0;
}

TSOCHECK_WITH("model=sc") void section_lock(void) {
  pthread_t a, b;
  pthread_create(&a, 0, locked, 0);
  pthread_create(&b, 0, locked, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(c == 2);
}

/* Nested: the inner end does not end the outer section. */
void __VERIFIER_atomic_bump(void) { n = n + 1; }

static void *nested(void *arg) {
  __VERIFIER_atomic_begin();
  int t = n;
  __VERIFIER_atomic_bump();
  assert(n == t + 1);
  __VERIFIER_atomic_end();
  return 0;
}

TSOCHECK_WITH("model=sc") void section_nested(void) {
  pthread_t a, b;
  pthread_create(&a, 0, nested, 0);
  pthread_create(&b, 0, nested, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
}

pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static void *holder(void *arg) {
  pthread_mutex_lock(&mu);
  pthread_mutex_unlock(&mu);
  return 0;
}

TSOCHECK_WITH("model=sc") void section_deadlock(void) {
  pthread_t a;
  pthread_create(&a, 0, holder, 0);
  __VERIFIER_atomic_begin();
  pthread_mutex_lock(&mu);
  pthread_mutex_unlock(&mu);
  __VERIFIER_atomic_end();
  pthread_join(a, 0);
}
