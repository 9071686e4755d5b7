/* Message passing with a ready flag: the producer writes the payload, then
 * raises `ready`; the consumer spins on `ready` and reads the payload.
 *
 * Bug: nothing orders the two stores. x86-TSO keeps stores in order, but
 * SPARC-PSO may make `ready = 1` visible before `data = 42`.
 *
 * expect: SC=verified TSO=verified PSO=violation
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int data;
volatile int ready;

static void *producer(void *arg) {
  data = 42;
  ready = 1;
  return NULL;
}

static void *consumer(void *arg) {
  while (!ready)
    ;
  assert(data == 42);
  return NULL;
}

TSOCHECK void message_passing(void) {
  pthread_t p, c;
  pthread_create(&p, NULL, producer, NULL);
  pthread_create(&c, NULL, consumer, NULL);
  pthread_join(p, NULL);
  pthread_join(c, NULL);
}
