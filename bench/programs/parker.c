/* Bench program: a park/unpark permit in the shape of HotSpot's Parker (the
 * TACAS'15 benchmark "parker"), written for tsocheck. park() takes the
 * permit (counter) on a fast path without the mutex, or under the mutex,
 * or announces that it waits and spins until unpark() clears `waiting`
 * (the condition variable's wait, the mutex released); unpark() sets the
 * permit and wakes a waiter under the mutex. A producer publishes ROUNDS
 * values (default 2), each followed by unpark(); the consumer parks until
 * it sees each one announced and asserts that the data came with it. SC:
 * safe. TSO: the fast path's store that takes the permit can stay buffered
 * until after the next unpark() has set the permit again, and then erase it:
 * the consumer waits forever (HotSpot's lost-permit bug, fixed there with a
 * fence). PSO may also flush the announcement before the data: the assertion
 * fails. FENCED puts a fence after the fast path's store and between the
 * data and the announcement: safe under all three.
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#include "fence.h"

#ifndef ROUNDS
#define ROUNDS 2
#endif

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int counter; /* the permit: 0 or 1 */
int waiting; /* 1 while the consumer waits for unpark() */
int data, announced;

static void park(void) {
  if (counter > 0) { /* fast path */
    counter = 0;
    FENCE(); /* else a later unpark's permit can flush first and be lost */
    return;
  }
  pthread_mutex_lock(&m);
  if (counter > 0) {
    counter = 0;
    pthread_mutex_unlock(&m);
    return;
  }
  waiting = 1;
  pthread_mutex_unlock(&m);
  while (waiting) /* the wait, with the mutex released */
    ;
  pthread_mutex_lock(&m);
  counter = 0;
  pthread_mutex_unlock(&m);
}

static void unpark(void) {
  pthread_mutex_lock(&m);
  counter = 1;
  if (waiting) waiting = 0; /* signal */
  pthread_mutex_unlock(&m);
}

static void *producer(void *arg) {
  for (int r = 1; r <= ROUNDS; r++) {
    data = r;
    FENCE();
    announced = r;
    unpark();
  }
  return NULL;
}

static void *consumer(void *arg) {
  for (int r = 1; r <= ROUNDS; r++) {
    while (announced < r) park();
    assert(data >= r);
  }
  return NULL;
}

TSOCHECK void parker_check(void) {
  pthread_t p, c;
  pthread_create(&p, NULL, producer, NULL);
  pthread_create(&c, NULL, consumer, NULL);
  pthread_join(p, NULL);
  pthread_join(c, NULL);
}
