/* Test harness for the queue in src/spsc.c: the producer pushes 1 and 2,
 * the consumer pops what is there and checks that values come out in order
 * and as they were pushed. tsocheck links this file with src/spsc.c through
 * the project's compile database.
 *
 * expect: SC=verified TSO=verified PSO=violation (default build);
 * verified under all three with -DSPSC_FIXED=ON.
 */
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#include "spsc.h"

static struct spsc queue;

static void *producer(void *arg) {
  spsc_push(&queue, 1);
  spsc_push(&queue, 2);
  return NULL;
}

static void *consumer(void *arg) {
  int expected = 1;
  for (int i = 0; i < 2; i++) {
    int v;
    if (spsc_pop(&queue, &v)) {
      assert(v == expected);
      expected++;
    }
  }
  return NULL;
}

TSOCHECK_WITH("model=pso") void spsc_in_order(void) {
  pthread_t p, c;
  spsc_init(&queue);
  pthread_create(&p, NULL, producer, NULL);
  pthread_create(&c, NULL, consumer, NULL);
  pthread_join(p, NULL);
  pthread_join(c, NULL);
}

int main(void) {
  spsc_in_order();
  return 0;
}
