/* The queue of include/spsc.h.
 *
 * The producer writes a slot, then publishes it by advancing `head`; the
 * consumer reads `head`, then the slot.
 *
 * Bug (default build): both steps use memory_order_relaxed, so nothing
 * orders the slot's store before the store to `head`. x86-TSO keeps stores
 * in order, but SPARC-PSO may make the new `head` visible first, and the
 * consumer then reads a slot that was not written yet.
 * Fixed (SPSC_FIXED): `head` is stored with release and loaded with acquire.
 *
 * expect (tests/test_spsc.c): SC=verified TSO=verified PSO=violation;
 * with SPSC_FIXED: verified under all three.
 */
#include "spsc.h"

#ifdef SPSC_FIXED
#define SPSC_PUBLISH memory_order_release
#define SPSC_OBSERVE memory_order_acquire
#else
#define SPSC_PUBLISH memory_order_relaxed
#define SPSC_OBSERVE memory_order_relaxed
#endif

void spsc_init(struct spsc *q) {
  atomic_init(&q->head, 0);
  atomic_init(&q->tail, 0);
}

int spsc_push(struct spsc *q, int v) {
  unsigned head = atomic_load_explicit(&q->head, memory_order_relaxed);
  unsigned tail = atomic_load_explicit(&q->tail, SPSC_OBSERVE);
  if (head - tail == SPSC_CAPACITY)
    return 0;
  q->slots[head % SPSC_CAPACITY] = v;
  atomic_store_explicit(&q->head, head + 1, SPSC_PUBLISH);
  return 1;
}

int spsc_pop(struct spsc *q, int *v) {
  unsigned tail = atomic_load_explicit(&q->tail, memory_order_relaxed);
  unsigned head = atomic_load_explicit(&q->head, SPSC_OBSERVE);
  if (head == tail)
    return 0;
  *v = q->slots[tail % SPSC_CAPACITY];
  atomic_store_explicit(&q->tail, tail + 1, SPSC_PUBLISH);
  return 1;
}
