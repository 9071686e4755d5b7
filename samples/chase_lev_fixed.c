/* A Chase–Lev work-stealing deque (fixed-size ring, no resizing), fixed:
 * take() issues a full fence between publishing the decremented `bottom`
 * and reading `top` (the fence the original paper requires), and push()
 * publishes `bottom` with a release store so that, under PSO, a thief never
 * sees the new `bottom` before the element.
 *
 * expect: SC=verified TSO=verified PSO=verified
 */
#include <stdatomic.h>
#include <assert.h>
#include <pthread.h>
#include <tsocheck.h>

#define SIZE 4
#define EMPTY (-1)
#define ABORT (-2)

int buffer[SIZE];
volatile long top, bottom;

static void push(int v) {
  long b = bottom;
  buffer[b % SIZE] = v;
  atomic_thread_fence(memory_order_release);
  bottom = b + 1;
}

static int take(void) {
  long b = bottom - 1;
  bottom = b;
  atomic_thread_fence(memory_order_seq_cst);
  long t = top;
  if (t > b) {  /* empty */
    bottom = b + 1;
    return EMPTY;
  }
  int v = buffer[b % SIZE];
  if (t == b) { /* last element: race the thieves for it */
    if (!__sync_bool_compare_and_swap(&top, t, t + 1))
      v = EMPTY;
    bottom = b + 1;
  }
  return v;
}

static int steal(void) {
  long t = top;
  long b = bottom;
  if (t >= b)
    return EMPTY;
  int v = buffer[t % SIZE];
  if (!__sync_bool_compare_and_swap(&top, t, t + 1))
    return ABORT;
  return v;
}

int stolen[2];

static void *thief(void *arg) {
  stolen[0] = steal();
  stolen[1] = steal();
  return NULL;
}

TSOCHECK void chase_lev(void) {
  push(1);
  push(2);
  pthread_t t;
  pthread_create(&t, NULL, thief, NULL);
  int mine = take();
  pthread_join(t, NULL);
  for (int i = 0; i < 2; i++)
    assert(mine < 0 || stolen[i] != mine); /* no element is taken twice */
  assert(stolen[0] < 0 || stolen[0] != stolen[1]);
}
