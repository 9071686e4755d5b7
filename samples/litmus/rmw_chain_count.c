/* The executions of samples/litmus/rmw_chain.c without its assertion: a store
 * and three fetch_adds on one location, 4! = 24 coherence orders, each its
 * own execution under every model.
 *
 * expect: SC=verified TSO=verified PSO=verified
 * expect-executions: SC=24 TSO=24 PSO=24
 */
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

atomic_int x;

static void *store(void *arg) {
  atomic_store(&x, 5);
  return NULL;
}
static void *add(void *arg) {
  atomic_fetch_add(&x, (int)(long)arg);
  return NULL;
}

TSOCHECK void rmw_chain_count(void) {
  pthread_t s, a, b, c;
  pthread_create(&s, NULL, store, NULL);
  pthread_create(&a, NULL, add, (void *)1L);
  pthread_create(&b, NULL, add, (void *)10L);
  pthread_create(&c, NULL, add, (void *)100L);
  pthread_join(s, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  pthread_join(c, NULL);
}
