/* A Chase–Lev work-stealing deque (fixed-size ring, no resizing): the owner
 * pushes and takes at the bottom, thieves steal at the top with a CAS.
 *
 * Bug: take() publishes the decremented `bottom` and then reads `top`
 * without a fence. Under x86-TSO (and PSO) the store can still be buffered,
 * so a thief reads the old `bottom`, believes two elements remain, and
 * steals the element the owner is taking without a CAS: one element is
 * returned twice.
 *
 * expect: SC=verified TSO=violation PSO=violation
 */
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
  bottom = b + 1;
}

static int take(void) {
  long b = bottom - 1;
  bottom = b;
  long t = top; /* BUG: needs a full fence before this load */
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
