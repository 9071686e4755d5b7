/* A bounded single-producer / single-consumer queue of ints (src/spsc.c).
 * One thread pushes, one thread pops; no locks. */
#ifndef SPSC_H
#define SPSC_H

#include <stdatomic.h>

#define SPSC_CAPACITY 4

struct spsc {
  int slots[SPSC_CAPACITY];
  atomic_uint head; /* next slot the producer fills */
  atomic_uint tail; /* next slot the consumer empties */
};

void spsc_init(struct spsc *q);
/* 1 when v was queued, 0 when the queue is full. */
int spsc_push(struct spsc *q, int v);
/* 1 when a value was taken into *v, 0 when the queue is empty. */
int spsc_pop(struct spsc *q, int *v);

#endif
