/* The address of a thread's copy passed to another thread: the other thread
   accesses the owner's copy, as ordinary shared memory. */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

static __thread int tls;
int result;
int *escaped;

static void *bump(void *arg) {
  int *p = arg;
  (*p)++;  /* the owner's copy, not this thread's */
  return 0;
}

static void *owner(void *arg) {
  pthread_t t;
  pthread_create(&t, 0, bump, &tls);
  tls++;  /* races with bump's increment: an update can be lost */
  pthread_join(t, 0);
  result = tls;
  return 0;
}

TSOCHECK void tls_race(void) {
  pthread_t t;
  pthread_create(&t, 0, owner, 0);
  pthread_join(t, 0);
  assert(result == 2);
}

static void *bump_atomic(void *arg) {
  __atomic_fetch_add((int *)arg, 1, __ATOMIC_SEQ_CST);
  return 0;
}

static void *owner_atomic(void *arg) {
  pthread_t t;
  pthread_create(&t, 0, bump_atomic, &tls);
  __atomic_fetch_add(&tls, 1, __ATOMIC_SEQ_CST);
  pthread_join(t, 0);
  result = tls;
  return 0;
}

/* With atomic increments nothing is lost: 2 exactly (1 if bump_atomic had
   incremented its own copy). */
TSOCHECK void tls_shared_atomic(void) {
  pthread_t t;
  pthread_create(&t, 0, owner_atomic, 0);
  pthread_join(t, 0);
  assert(result == 2);
}

static void *publish(void *arg) {
  escaped = &tls;
  tls = 5;
  return 0;
}

/* A thread's copies end with it: reading one after the join is a memory error. */
TSOCHECK void tls_after_exit(void) {
  pthread_t t;
  pthread_create(&t, 0, publish, 0);
  pthread_join(t, 0);
  assert(*escaped == 5);
}
