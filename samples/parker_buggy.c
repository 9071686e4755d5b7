/* A park/unpark permit in the shape of HotSpot's Parker (the thread parking
 * behind LockSupport.park), with a futex-style wait: park() takes the
 * permit on a fast path without the mutex, else under the mutex, else it
 * announces that it sleeps and waits until unpark() wakes it; unpark() sets
 * the permit and wakes a sleeper under the mutex. A producer publishes two
 * values (VALUES), unparking the consumer after each; the consumer parks
 * until it sees each one.
 *
 * Bug: the fast path takes the permit with a plain store. On x86-TSO that
 * store can stay in the consumer's store buffer while the producer's next
 * unpark() reads the old permit, sets it again and, finding nobody asleep,
 * wakes nobody; then the buffered store reaches memory and erases the new
 * permit. The consumer sleeps and is never woken (HotSpot shipped this
 * lost-permit bug; a fence after the store fixed it).
 *
 * expect: SC=verified TSO=violation PSO=violation
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
  if (permit > 0) { /* fast path */
    permit = 0;
    return;
  }
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
