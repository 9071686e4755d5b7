/* A park/unpark permit in the shape of HotSpot's Parker, fixed: the fast
 * path takes the permit with an atomic exchange (a locked instruction on
 * x86, which drains the store buffer), so no later unpark() can set the
 * permit before the taking store has reached memory. See parker_buggy.c.
 *
 * expect: SC=verified TSO=verified PSO=verified
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#ifndef VALUES
#define VALUES 2 /* how many values the producer publishes (bench/peers.sh: more) */
#endif

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
volatile int permit;   /* 0 or 1 */
volatile int sleeping; /* 1 while the consumer waits for unpark() */
int data[VALUES + 1];  /* one slot per value */
int published;         /* written with release, read with acquire */

static void park(void) {
  if (__atomic_exchange_n(&permit, 0, __ATOMIC_SEQ_CST) > 0) /* fast path */
    return;
  pthread_mutex_lock(&lock);
  if (permit > 0) {
    permit = 0;
    pthread_mutex_unlock(&lock);
    return;
  }
  sleeping = 1;
  pthread_mutex_unlock(&lock);
  while (sleeping) /* the futex wait */
    ;
  pthread_mutex_lock(&lock);
  permit = 0;
  pthread_mutex_unlock(&lock);
}

static void unpark(void) {
  pthread_mutex_lock(&lock);
  permit = 1;
  if (sleeping) sleeping = 0; /* wake the sleeper */
  pthread_mutex_unlock(&lock);
}

static void *producer(void *arg) {
  for (int v = 1; v <= VALUES; v++) {
    data[v] = v;
    __atomic_store_n(&published, v, __ATOMIC_RELEASE);
    unpark();
  }
  return NULL;
}

static void *consumer(void *arg) {
  for (int v = 1; v <= VALUES; v++) {
    while (__atomic_load_n(&published, __ATOMIC_ACQUIRE) < v) park();
    assert(data[v] == v);
  }
  return NULL;
}

TSOCHECK void parker(void) {
  pthread_t p, c;
  pthread_create(&p, NULL, producer, NULL);
  pthread_create(&c, NULL, consumer, NULL);
  pthread_join(p, NULL);
  pthread_join(c, NULL);
}
