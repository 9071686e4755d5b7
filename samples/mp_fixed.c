/* Message passing with a ready flag, fixed with C11 release/acquire: the
 * release store keeps the payload store before the flag store (a store-store
 * barrier under PSO; free under TSO).
 *
 * expect: SC=verified TSO=verified PSO=verified
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

int data;
atomic_int ready;

static void *producer(void *arg) {
  data = 42;
  atomic_store_explicit(&ready, 1, memory_order_release);
  return NULL;
}

static void *consumer(void *arg) {
  while (!atomic_load_explicit(&ready, memory_order_acquire))
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
