/* Message passing with plain stores: fails under PSO with two pending stores.
 * The annotation asks for deepening: buffer_bound=0..3.
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

int x, y, r1, r2;

static void *writer(void *a) { x = 1; y = 1; return 0; }
static void *reader(void *a) { r1 = y; r2 = x; return 0; }

TSOCHECK_WITH("model=pso buffer_bound=0..3") void mp_deepen(void) {
  pthread_t t1, t2;
  pthread_create(&t1, 0, writer, 0);
  pthread_create(&t2, 0, reader, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(!(r1 == 1 && r2 == 0));
}
