/* Bench program: "fanout" — two writer threads each store 1, 2, 3 alternately
 * to two locations of their own (x/y and z/w); a long reader loads
 * x y z w x y z and a short reader loads x y z, all loads acquire and all
 * stores release. Nothing is asserted: the cost is the number of
 * (reads-from, coherence) combinations. GenMC's synthetic benchmark of this
 * shape ("big0") reports 69,112 executions under SC (and RC11).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

atomic_int x, y, z, w;

static void *longReader(void *arg) {
  atomic_int *order[] = {&x, &y, &z, &w, &x, &y, &z};
  for (int i = 0; i < 7; i++) (void)atomic_load_explicit(order[i], memory_order_acquire);
  return NULL;
}
static void *shortReader(void *arg) {
  (void)atomic_load_explicit(&x, memory_order_acquire);
  (void)atomic_load_explicit(&y, memory_order_acquire);
  (void)atomic_load_explicit(&z, memory_order_acquire);
  return NULL;
}
static void *writer(void *arg) {
  atomic_int *first = ((atomic_int **)arg)[0], *second = ((atomic_int **)arg)[1];
  for (int v = 1; v <= 3; v++) {
    atomic_store_explicit(first, v, memory_order_release);
    atomic_store_explicit(second, v, memory_order_release);
  }
  return NULL;
}

TSOCHECK void fanout(void) {
  static atomic_int *xy[] = {&x, &y}, *zw[] = {&z, &w};
  pthread_t t[4];
  pthread_create(&t[0], NULL, longReader, NULL);
  pthread_create(&t[1], NULL, shortReader, NULL);
  pthread_create(&t[2], NULL, writer, xy);
  pthread_create(&t[3], NULL, writer, zw);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
}
