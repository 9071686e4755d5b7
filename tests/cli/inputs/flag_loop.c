/* A waiter whose loop has side effects (so the default mode bounds it at the
 * loop bound) but only finitely many states: buffer-bound deepening ends the
 * loop with its visited-state table and proves it for unbounded buffers.
 * The loop is on line 19.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <tsocheck.h>

atomic_int flag;
int busy, data;

static void *producer(void *arg) {
  data = 42;
  atomic_store(&flag, 1);
  return NULL;
}
static void *waiter(void *arg) {
  while (!atomic_load(&flag)) { busy = 1; busy = 0; }
  assert(data == 42);
  return NULL;
}

TSOCHECK void flag_loop(void) {
  pthread_t p, w;
  pthread_create(&p, NULL, producer, NULL);
  pthread_create(&w, NULL, waiter, NULL);
  pthread_join(p, NULL);
  pthread_join(w, NULL);
}
