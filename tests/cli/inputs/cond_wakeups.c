/* Condition-variable waits with and without spurious wake-ups
   (--no-spurious-wakeups / spurious_wakeups=off). */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int ready;

static void *signaller(void *arg) {
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_cond_signal(&c);
  pthread_mutex_unlock(&m);
  return 0;
}

/* No predicate loop. The waiter holds the mutex until it waits, so the
   signal comes while it waits: only a spurious wake-up sees ready == 0. */
TSOCHECK void wait_without_loop(void) {
  pthread_t t;
  pthread_mutex_lock(&m);
  pthread_create(&t, 0, signaller, 0);
  pthread_cond_wait(&c, &m);
  assert(ready); /* line 26 */
  pthread_mutex_unlock(&m);
  pthread_join(t, 0);
}

/* The same, the option in the annotation. */
TSOCHECK_WITH("spurious_wakeups=off") void wait_without_loop_annotated(void) {
  pthread_t t;
  pthread_mutex_lock(&m);
  pthread_create(&t, 0, signaller, 0);
  pthread_cond_wait(&c, &m);
  assert(ready);
  pthread_mutex_unlock(&m);
  pthread_join(t, 0);
}

/* The signal may come before the wait: without spurious wake-ups the wait
   then never ends. */
TSOCHECK void lost_wakeup(void) {
  pthread_t t;
  pthread_create(&t, 0, signaller, 0);
  pthread_mutex_lock(&m);
  pthread_cond_wait(&c, &m); /* line 48 */
  pthread_mutex_unlock(&m);
  pthread_join(t, 0);
}

static int woken;

static void *counting_waiter(void *arg) {
  pthread_mutex_lock(&m);
  while (!ready) {
    pthread_cond_wait(&c, &m);
    woken++;
  }
  pthread_mutex_unlock(&m);
  return 0;
}

static void *broadcaster(void *arg) {
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_cond_broadcast(&c);
  pthread_mutex_unlock(&m);
  return 0;
}

/* Two waiters, one broadcast; each wake-up is counted. With spurious
   wake-ups a waiter may wake again and again; without them each waiter
   wakes at most once. */
TSOCHECK void broadcast_two_waiters(void) {
  pthread_t a, b, s;
  pthread_create(&a, 0, counting_waiter, 0);
  pthread_create(&b, 0, counting_waiter, 0);
  pthread_create(&s, 0, broadcaster, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(s, 0);
  assert(woken <= 2);
}
